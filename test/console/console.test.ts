import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { eventually } from "../helpers/eventually.ts";
import { rejectionOf } from "../helpers/rejection-of.ts";
import { ADMIN_TOKEN, startTestGateway, type TestGateway } from "../helpers/start-test-gateway.ts";
import { DATABASE_HOOK_TIMEOUT_MS } from "../helpers/test-database.ts";

const CHROMIUM = "/usr/bin/chromium";
/** A browser step on a busy machine can take seconds. */
const STEP_MS = 60_000;
const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];
/** CI (and `.ci/run`) installs Chromium: there, a missing browser fails the test instead of skipping it. */
const REQUIRED = process.env.CI === "true" || process.env.ROUTELANE_REQUIRE_CHROMIUM === "1";
const AVAILABLE = existsSync(CHROMIUM);
/** Screenshots of every page, for people to look at (gitignored). */
const SCREENSHOTS = join(import.meta.dir, "..", "..", "test-artifacts", "console");

if (!AVAILABLE && !REQUIRED) {
  console.warn(`console browser test skipped: no Chromium at ${CHROMIUM} (apt-get install -y chromium; CI installs it and requires it)`);
}

describe.skipIf(!AVAILABLE && !REQUIRED)("the console in a real browser", () => {
  let gw: TestGateway;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let logFile: string;
  const failedRequests: string[] = [];
  const consoleErrors: string[] = [];

  beforeAll(async () => {
    if (!AVAILABLE) throw new Error(`Chromium is required here (CI) but ${CHROMIUM} is missing: install the Debian package chromium`);
    mkdirSync(SCREENSHOTS, { recursive: true });
    logFile = join(mkdtempSync(join(tmpdir(), "routelane-console-")), "requests.jsonl");
    gw = await startTestGateway({ env: { ROUTELANE_LOG_LEVEL: "info", ROUTELANE_LOG_DESTINATION: logFile } });
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
    context = await browser.newContext({ viewport: { width: 1366, height: 900 } });
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: gw.url });
    page = await context.newPage();
    page.setDefaultTimeout(30_000);
    // A navigation cancels the fetches of the page it leaves (ERR_ABORTED): not a failure to load.
    page.on("requestfailed", (request) => {
      if (request.failure()?.errorText !== "net::ERR_ABORTED") failedRequests.push(`${request.url()} ${request.failure()?.errorText}`);
    });
    page.on("console", (message) => {
      // The refused sign-in, the session check before it (401) and the CSRF check (403) are refusals on purpose.
      if (message.type() === "error" && !/status of 40[13] /.test(message.text())) consoleErrors.push(message.text());
    });
  }, DATABASE_HOOK_TIMEOUT_MS);

  afterAll(async () => {
    await browser?.close();
    await gw?.stop();
    if (logFile) rmSync(dirname(logFile), { recursive: true, force: true });
  }, DATABASE_HOOK_TIMEOUT_MS);

  const shot = (name: string) => page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
  /** The numbers of a chart's data table, as text. */
  const chartTable = (title: string) => page.locator(`table[data-chart="${title}"]`);
  /** A number the page shows in one of its stat boxes. */
  const statOf = async (name: string) => Number(await page.locator(`[data-stat=${name}]`).textContent());

  let accountId = "";
  let key = "";

  test("sign in with the admin token: an HttpOnly, SameSite=Strict session cookie; the token is nowhere in the page", async () => {
    await page.goto(`${gw.url}/console`);
    await page.waitForURL(`${gw.url}/console/sign-in`);
    await shot("sign-in");
    await page.getByLabel("Admin token").fill("not-the-admin-token");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expectText(page.getByRole("alert"), "That is not the admin token.");
    await page.getByLabel("Admin token").fill(ADMIN_TOKEN);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${gw.url}/console`);
    await page.getByRole("heading", { name: "Overview", exact: true }).waitFor();

    const [cookie] = await context.cookies();
    expect(cookie).toMatchObject({ name: "routelane_console", httpOnly: true, sameSite: "Strict", secure: false, path: "/" });
    expect(cookie!.expires * 1000).toBeGreaterThan(Date.now() + 11 * 3600_000);
    expect(cookie!.value).not.toContain(ADMIN_TOKEN);
    // Neither the page's script nor its address ever holds the token or the session.
    expect(await page.evaluate("document.cookie")).toBe("");
    expect(page.url()).not.toContain(ADMIN_TOKEN);
    const storage = await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }));
    expect(storage).toBe("{}{}");
    expect(await page.content()).not.toContain(ADMIN_TOKEN);
  }, STEP_MS);

  test("a write without the session's CSRF token is refused, even from the page itself", async () => {
    const status = await page.evaluate(async () => (await fetch("/admin/accounts", { method: "POST", headers: { "content-type": "application/json" }, body: '{"plan":"Pro"}' })).status);
    expect(status).toBe(403);
  }, STEP_MS);

  test("Accounts: create an account; its key is shown once, with a copy button", async () => {
    await page.getByRole("link", { name: "Accounts" }).click();
    await page.getByRole("heading", { name: "Accounts", exact: true }).waitFor();
    await page.getByLabel("Plan").first().selectOption("Pro");
    await page.getByLabel("E-mail", { exact: true }).fill("browser@example.com");
    await page.getByRole("button", { name: "Create account" }).click();
    const firstKey = await page.locator("[data-new-key]").textContent();
    expect(firstKey).toMatch(/^rl_[0-9A-Za-z]{43}$/);
    await page.getByRole("button", { name: "Copy key" }).click();
    await page.getByRole("button", { name: "Copied" }).waitFor();
    expect(await page.evaluate("navigator.clipboard.readText()")).toBe(firstKey!);
    const link = page.getByRole("link", { name: /^acct_/ }).first();
    accountId = (await link.textContent())!;
    await shot("accounts");
    await page.getByRole("button", { name: "I have stored it" }).click();
    await expect(page.locator("[data-new-key]").count()).resolves.toBe(0);
    await page.getByRole("searchbox", { name: "Search e-mail" }).fill("BROWSER@");
    await page.locator("tbody tr", { hasText: accountId }).waitFor();
  }, STEP_MS);

  test("Account page: issue a key with controls; the key is shown once", async () => {
    await page.goto(`${gw.url}/console#/accounts/${accountId}`);
    await page.getByRole("heading", { name: `Account ${accountId} active` }).waitFor();
    await page.getByLabel("Name").last().fill("browser key");
    await page.getByLabel("Requests per minute").last().fill("120");
    await page.getByRole("button", { name: "Issue key" }).click();
    key = (await page.locator("[data-new-key]").textContent())!;
    expect(key).toMatch(/^rl_/);
    await page.locator("tbody tr", { hasText: "browser key" }).waitFor();
    expect(await page.locator("tbody tr", { hasText: "browser key" }).textContent()).toContain("120/min");
  }, STEP_MS);

  test("traffic sent with the key through the SDK shows in the Overview charts and in the account's usage", async () => {
    const client = new Anthropic({ baseURL: gw.url, apiKey: key, maxRetries: 0 });
    for (let i = 0; i < 6; i++) {
      await client.messages.create({ model: i % 2 === 0 ? "fast" : "normal", max_tokens: 100, messages: [{ role: "user", content: `console traffic ${i}` }] });
    }
    await page.getByRole("link", { name: "Overview" }).click();
    await page.getByRole("heading", { name: "Overview", exact: true }).waitFor();
    // Two snapshots of the gateway's metrics make the first interval; the total counts every request.
    const total = await eventually(() => statOf("requests"), (n) => n >= 6);
    expect(total).toBeGreaterThanOrEqual(6);
    for (let i = 0; i < 3; i++) await client.messages.create({ model: "fast", max_tokens: 50, messages: [{ role: "user", content: `live ${i}` }] });
    // At least three intervals, one of them with traffic, so the charts have a line to show.
    const cells = await eventually(
      async () => ({ rows: await chartTable("Requests per second by tier").locator("tbody tr").count(), values: (await chartTable("Requests per second by tier").locator("td").allTextContents()).map(Number) }),
      ({ rows, values }) => rows >= 3 && values.some((n) => n > 0),
      200,
      100,
    );
    expect(cells.values.some((n) => n > 0)).toBe(true);
    expect(await chartTable("Requests per second by tier").locator("thead").textContent()).toContain("fast");
    expect(await chartTable("Latency and time to first byte").locator("thead").textContent()).toContain("latency p99");
    expect(await page.locator("canvas").count()).toBeGreaterThanOrEqual(5);
    await shot("overview");

    await page.goto(`${gw.url}/console#/accounts/${accountId}`);
    // The usage writer lands rows within its interval (1 s): the page is read again until they show.
    const shown = await eventually(
      async () => {
        await page.reload();
        await page.getByRole("heading", { name: "Usage this month (UTC)" }).waitFor();
        return eventually(() => statOf("account-requests"), (n) => n >= 9, 10, 100);
      },
      (n) => n >= 9,
      30,
      200,
    );
    expect(shown).toBe(9);
    const byTier = await chartTable("Requests by day and tier").textContent();
    expect(byTier).toContain("fast");
    expect(byTier).toContain("normal");
    expect(await page.locator("[data-stat=account-cost]").textContent()).toMatch(/^\$\d/);
    await shot("account");
  }, STEP_MS);

  test("Routing: the explain form shows the decision", async () => {
    await page.getByRole("link", { name: "Routing" }).click();
    await page.getByRole("button", { name: "Explain" }).click();
    await page.locator("[data-field=model]").waitFor();
    expect(await page.locator("[data-field=model]").textContent()).toMatch(/\S/);
    await page.getByRole("heading", { name: "Candidates, in order" }).waitFor();
    await shot("routing");
  }, STEP_MS);

  test("Smart+ jobs: the list", async () => {
    await page.getByRole("link", { name: "Smart+ jobs" }).click();
    await page.getByRole("heading", { name: "Jobs", exact: true }).waitFor();
    await shot("jobs");
  }, STEP_MS);

  test("revoke the key from the page: the next SDK call is refused with 401", async () => {
    await page.goto(`${gw.url}/console#/accounts/${accountId}`);
    const row = page.locator("tbody tr", { hasText: "browser key" });
    page.once("dialog", (dialog) => void dialog.accept());
    await row.getByRole("button", { name: /^Revoke key/ }).click();
    await row.getByText("revoked").waitFor();
    const refused = await rejectionOf(new Anthropic({ baseURL: gw.url, apiKey: key, maxRetries: 0 }).messages.create({ model: "fast", max_tokens: 10, messages: [{ role: "user", content: "after revoke" }] }));
    expect(refused).toBeInstanceOf(Anthropic.AuthenticationError);
    const audit = (await (await fetch(`${gw.url}/admin/audit?action=key.revoke`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).json()) as { data: Array<{ actor: string }> };
    expect(audit.data[0]!.actor).toMatch(/^console session ses_/);
  }, STEP_MS);

  test("sign out: the session is over, the old cookie lets nothing in", async () => {
    const [old] = await context.cookies();
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(`${gw.url}/console/sign-in`);
    expect(await context.cookies()).toEqual([]);
    const replay = await fetch(`${gw.url}/admin/accounts`, { headers: { cookie: `routelane_console=${old!.value}` } });
    expect(replay.status).toBe(401);
  }, STEP_MS);

  test("every asset came from the gateway, and the page logged no error", async () => {
    expect(failedRequests.join("\n")).toBe("");
    expect(consoleErrors.join("\n")).toBe("");
  }, STEP_MS);

  test("the request log holds neither the admin token nor the session", async () => {
    await gw.gateway.requestLog.flush();
    const log = readFileSync(logFile, "utf8");
    expect(log).toContain('"msg":"request"');
    expect(log).not.toContain(ADMIN_TOKEN);
    expect(log).not.toContain("routelane_console");
    expect(key).toMatch(/^rl_/);
    expect(log).not.toContain(key);
  }, STEP_MS);
});

async function expectText(locator: ReturnType<Page["locator"]>, text: string): Promise<void> {
  await locator.waitFor();
  expect(await locator.textContent()).toContain(text);
}
