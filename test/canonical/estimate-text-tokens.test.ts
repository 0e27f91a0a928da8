import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { estimateTextTokens } from "../../src/canonical/estimate-text-tokens.ts";

const ROOT = join(import.meta.dir, "..", "..");
const file = (path: string): string => readFileSync(join(ROOT, path), "utf8");

describe("estimateTextTokens against the o200k tokenizer", () => {
  test.each([
    ["English prose (README)", file("README.md").slice(0, 20_000)],
    ["TypeScript", file("src/limits/create-memory-limiter.ts")],
    ["TypeScript", file("src/pipeline/handle-chat-request.ts")],
    ["JSON", JSON.stringify(JSON.parse(file("package.json")), null, 2)],
    ["Chinese", "我们的网关把请求路由到合适的模型。当客户端断开连接时，已经流式传输的令牌仍然需要计费。这是一个测试句子，用于校准估算器。人工智能正在改变世界，软件工程师每天都在使用它编写代码。"],
    ["Japanese", "このゲートウェイはリクエストを適切なモデルにルーティングします。クライアントが接続を切断した場合でも、すでにストリーミングされたトークンは課金されます。東京は日本の首都です。"],
    ["Russian", "Шлюз направляет запросы к подходящей модели. Если клиент отключается, уже переданные токены всё равно оплачиваются. Это тестовое предложение для калибровки."],
  ])("%s: within 15%%", (_name, text) => {
    const real = countTokens(text);
    expect(Math.abs(estimateTextTokens(text) / real - 1)).toBeLessThan(0.15);
  });

  test.each([
    ["", 0],
    ["alpha ", 1],
    ["alpha alpha alpha ", 3],
    ["1234567", 3],
    ["\n\n", 1],
  ])("%j → %d", (text, tokens) => {
    expect(estimateTextTokens(text)).toBe(tokens);
  });
});
