import { useState } from "preact/hooks";
import { api } from "./api.ts";
import { ErrorLine, useAction } from "./shared.tsx";

interface Explained {
  tier: string;
  task_class: string | null;
  rule: string | null;
  model: string;
  effort: string;
  base_effort: string;
  source: string;
  candidates: Array<{ model: string; upstream_id: string; provider: string }>;
  warnings: string[];
}

const EXAMPLE = JSON.stringify({ model: "normal", max_tokens: 1024, messages: [{ role: "user", content: "Refactor this function to remove the duplication." }] }, null, 2);

/** The explain endpoint as a form: a request in, the routing decision out, nothing called. */
export function Routing() {
  const [format, setFormat] = useState("messages");
  const [body, setBody] = useState(EXAMPLE);
  const [account, setAccount] = useState("");
  const [result, setResult] = useState<Explained | null>(null);
  const [error, act] = useAction();
  return (
    <>
      <h1>Routing</h1>
      <section class="card" aria-labelledby="explain">
        <h2 id="explain">Explain a request</h2>
        <p class="muted">Paste a request body: the decision is made as for a real one (rules only, nothing cached, no upstream called).</p>
        <form
          onSubmit={(event) => {
            event.preventDefault();
            void act(async () => {
              let parsed: unknown;
              try {
                parsed = JSON.parse(body);
              } catch {
                throw new Error("the request body is not valid JSON");
              }
              setResult(await api<Explained>("POST", "/admin/route/explain", { format, body: parsed, ...(account ? { account } : {}) }));
            });
          }}
        >
          <div class="inline">
            <label>
              Format
              <select name="format" value={format} onChange={(e) => setFormat(e.currentTarget.value)}>
                <option value="messages">Messages</option>
                <option value="chat">Chat Completions</option>
                <option value="responses">Responses</option>
              </select>
            </label>
            <label>
              Account (optional)
              <input name="account" value={account} onInput={(e) => setAccount(e.currentTarget.value)} placeholder="acct_…" />
            </label>
          </div>
          <label>
            Request body (JSON)
            <textarea name="body" rows={12} value={body} onInput={(e) => setBody(e.currentTarget.value)} />
          </label>
          <p><button class="primary" type="submit">Explain</button></p>
        </form>
        <ErrorLine error={error} />
      </section>
      {result && (
        <section class="card" aria-labelledby="decision" aria-live="polite">
          <h2 id="decision">Decision</h2>
          <table>
            <tbody>
              <tr><th scope="row">tier</th><td>{result.tier}</td></tr>
              <tr><th scope="row">class</th><td data-field="class">{result.task_class ?? "–"}</td></tr>
              <tr><th scope="row">rule</th><td>{result.rule ?? "tier default"}</td></tr>
              <tr><th scope="row">model</th><td data-field="model">{result.model}</td></tr>
              <tr><th scope="row">effort</th><td>{result.effort} (tier default {result.base_effort})</td></tr>
              <tr><th scope="row">source</th><td>{result.source}</td></tr>
            </tbody>
          </table>
          <h2>Candidates, in order</h2>
          <ol>
            {result.candidates.map((c) => (
              <li>{c.model} <span class="muted">({c.provider}: {c.upstream_id})</span></li>
            ))}
          </ol>
          {result.warnings.length > 0 && <p class="muted">Warnings: {result.warnings.join("; ")}</p>}
        </section>
      )}
    </>
  );
}
