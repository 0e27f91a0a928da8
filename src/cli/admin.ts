import { parseArgs } from "node:util";
import { answerInfoFlags } from "../ops/answer-info-flags.ts";
import { runCheckConfig } from "./check-config.ts";
import type { JsonObject } from "../canonical/json-object.ts";

const USAGE = `Usage: bun run admin <command> [options]

Commands:
  accounts create --plan P [--default-tier T] [--email E]   create an account and its first key
  accounts list [--plan P] [--suspended true|false] [--email TEXT] [--limit N] [--cursor C]
                                                            accounts with keys, last use, this month's usage
  accounts show ID                                          show an account and its effective limits
  accounts suspend ID | accounts unsuspend ID
  accounts update ID [--plan P] [--default-tier T]
                     [--rpm N|none] [--concurrency N|none] [--monthly-tokens N|none]
                                                            (limits: Enterprise only; none = no cap)
  keys create ACCOUNT_ID [key controls]                     issue a key (printed once)
  keys update KEY_ID [key controls]                         change a key's controls
  keys list ACCOUNT_ID                                      list keys (display prefixes only)
  keys revoke KEY_ID
  usage ACCOUNT_ID [--month YYYY-MM]                        usage by tier and model (default: this month, UTC)
  check-config [FILE]                                       validate a config (default $ROUTELANE_CONFIG, else the
                                                            built-in one) and call each provider's models endpoint
  report [--from D] [--to D] [--group-by G[,G]] [--account ID] [--key ID] [--csv]
                                                            usage across accounts (groups: day, hour, account,
                                                            tier, model, key; default: this month by day)
  audit [--account ID] [--action A] [--limit N] [--cursor C] admin writes, newest first
  help                                                      this text (also --help); --version prints the version

Key controls: --name N|none  --expires TIME|none (ISO 8601)  --tiers T,T|all
              --key-rpm N|none  --monthly-spend USD|none

Options:
  --json        print the API's JSON answer instead of text
  --url URL     gateway address (default $ROUTELANE_URL or http://127.0.0.1:8787)

Environment: ROUTELANE_ADMIN_TOKEN (required but for check-config), ROUTELANE_URL.`;

const DEFAULT_URL = "http://127.0.0.1:8787";

/** A failure reported as one line on stderr. */
class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

interface Io {
  out(line: string): void;
  err(line: string): void;
}

interface Api {
  call(method: string, path: string, body?: unknown): Promise<JsonObject>;
  /** The answer as text (CSV). */
  text(path: string, accept: string): Promise<string>;
}

function createApi(baseUrl: string, token: string): Api {
  async function send(method: string, path: string, body: unknown, accept: string): Promise<{ response: Response; text: string }> {
    const url = new URL(path, baseUrl.endsWith("/") ? baseUrl : `${baseUrl}/`).toString();
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers: { authorization: `Bearer ${token}`, accept, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch {
      throw new CliError(`cannot reach ${baseUrl}`);
    }
    return { response, text: await response.text() };
  }
  function fail(response: Response, text: string): never {
    let message: unknown;
    try {
      message = (JSON.parse(text) as { error?: { message?: unknown } }).error?.message;
    } catch {
      message = undefined;
    }
    if (response.status === 404 && typeof message !== "string") {
      throw new CliError(`HTTP 404 from ${baseUrl}: no admin API there (is ROUTELANE_ADMIN_TOKEN set on the server?)`);
    }
    throw new CliError(typeof message === "string" ? message : `HTTP ${response.status} from ${baseUrl}`);
  }
  return {
    async text(path, accept) {
      const { response, text } = await send("GET", path, undefined, accept);
      if (!response.ok) fail(response, text);
      return text;
    },
    async call(method, path, body) {
      const { response, text } = await send(method, path, body, "application/json");
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      if (!response.ok) fail(response, text);
      if (typeof json !== "object" || json === null) throw new CliError(`unexpected answer from ${baseUrl} (not JSON)`);
      return json as JsonObject;
    },
  };
}

function parseLimit(flag: string, raw: string | undefined): number | null | undefined {
  if (raw === undefined) return undefined;
  if (raw === "none") return null;
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || !Number.isSafeInteger(Number(raw))) {
    throw new CliError(`--${flag}: expected a positive integer or "none", got "${raw}"`, 2);
  }
  return Number(raw);
}

const orDash = (value: unknown) => (value === null || value === undefined || value === "" ? "-" : String(value));
const cap = (value: unknown, unit: string) => (value === null ? `no cap ${unit}` : `${value} ${unit}`);

function formatAccount(a: JsonObject): string[] {
  const limits = (a.limits ?? {}) as JsonObject;
  return [
    `id            ${a.id}`,
    `plan          ${a.plan}`,
    `default tier  ${a.default_tier}`,
    `email         ${orDash(a.email)}`,
    `suspended     ${a.suspended ? "yes" : "no"}`,
    `limits        ${cap(limits.requests_per_minute, "requests/min")}, ${cap(limits.concurrent_requests, "concurrent")}, ${cap(limits.tokens_per_month, "tokens/month")}`,
    `created       ${a.created_at}`,
  ];
}

/** The key-control flags given, as the API's body. */
function keyControlsOf(values: Record<string, unknown>): JsonObject {
  const body: JsonObject = {};
  const text = (flag: string) => values[flag] as string | undefined;
  const name = text("name");
  if (name !== undefined) body.name = name === "none" ? null : name;
  const expires = text("expires");
  if (expires !== undefined) body.expires_at = expires === "none" ? null : expires;
  const tiers = text("tiers");
  if (tiers !== undefined) body.allowed_tiers = tiers === "all" ? null : tiers.split(",").map((t) => t.trim());
  const rpm = parseLimit("key-rpm", text("key-rpm"));
  if (rpm !== undefined) body.requests_per_minute = rpm;
  const spend = text("monthly-spend");
  if (spend !== undefined) {
    if (spend !== "none" && !(/^\d+(\.\d+)?$/.test(spend) && Number(spend) > 0)) throw new CliError(`--monthly-spend: expected a positive number of USD or "none", got "${spend}"`, 2);
    body.monthly_spend_usd = spend === "none" ? null : Number(spend);
  }
  return body;
}

function formatKeys(keys: JsonObject[]): string[] {
  if (keys.length === 0) return ["no keys"];
  const controls = (k: JsonObject) =>
    [
      k.allowed_tiers ? `tiers ${(k.allowed_tiers as string[]).join(",")}` : "",
      k.requests_per_minute === null || k.requests_per_minute === undefined ? "" : `${k.requests_per_minute}/min`,
      k.monthly_spend_usd === null || k.monthly_spend_usd === undefined ? "" : `$${k.monthly_spend_usd}/month`,
      k.expires_at ? `until ${k.expires_at}` : "",
    ].filter(Boolean).join(" ");
  const rows = [
    ["ID", "NAME", "PREFIX", "CREATED", "LAST USED", "REVOKED", "CONTROLS"],
    ...keys.map((k) => [k.id, k.name, `${k.prefix}…`, k.created_at, k.last_used_at, k.revoked_at, controls(k)].map(orDash)),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((cell, i) => cell.padEnd(widths[i]!)).join("  ").trimEnd());
}

function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join("  ").trimEnd());
}

const usd = (value: unknown) => `$${Number(value ?? 0).toFixed(6)}`;

function formatUsage(u: JsonObject): string[] {
  const totals = (u.totals ?? {}) as JsonObject;
  const header = ["", "REQUESTS", "INPUT", "CACHE READ", "CACHE WRITE", "OUTPUT", "REASONING", "CACHE HITS", "COST USD"];
  const cells = (name: string, r: JsonObject) => [
    name,
    ...["requests", "input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens", "output_tokens", "reasoning_tokens", "cache_hits"].map((k) => String(r[k] ?? 0)),
    usd(r.cost_usd),
  ];
  const byTier = ((u.by_tier as JsonObject[] | undefined) ?? []).map((r) => cells(String(r.tier), r));
  const byModel = ((u.by_model as JsonObject[] | undefined) ?? []).map((r) => cells(orDash(r.model), r));
  return [
    `account ${u.account_id}, month ${u.month} (UTC)`,
    "",
    ...table([["TIER", ...header.slice(1)], ...byTier, cells("total", totals)]),
    "",
    ...table([["MODEL", ...header.slice(1)], ...byModel]),
  ];
}

function formatAccountList(page: JsonObject): string[] {
  const accounts = (page.data as JsonObject[] | undefined) ?? [];
  if (accounts.length === 0) return ["no accounts"];
  const rows = accounts.map((a) => {
    const keys = (a.keys ?? {}) as JsonObject;
    const month = (a.month ?? {}) as JsonObject;
    return [String(a.id), String(a.plan), a.suspended ? "yes" : "no", orDash(a.email), `${keys.active}/${keys.total}`, orDash(a.last_used_at), String(month.tokens ?? 0), usd(month.cost_usd)];
  });
  const lines = table([["ID", "PLAN", "SUSPENDED", "EMAIL", "KEYS", "LAST USED", "TOKENS", "COST USD"], ...rows]);
  return page.next_cursor ? [...lines, `more: --cursor ${page.next_cursor}`] : lines;
}

const REPORT_FIELDS = ["requests", "input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens", "reasoning_tokens", "cache_hits", "errors"];
const GROUP_COLUMNS: Record<string, string> = { day: "day", hour: "hour", account: "account_id", tier: "tier", model: "model", key: "key_id" };

function formatReport(report: JsonObject): string[] {
  const groups = ((report.group_by as string[] | undefined) ?? []).map((g) => GROUP_COLUMNS[g] ?? g);
  const cells = (row: JsonObject) => [...REPORT_FIELDS.map((f) => String(row[f] ?? 0)), usd(row.cost_usd)];
  const header = [...groups.map((g) => g.toUpperCase()), "REQUESTS", "INPUT", "OUTPUT", "CACHE READ", "CACHE WRITE", "REASONING", "CACHE HITS", "ERRORS", "COST USD"];
  const rows = ((report.data as JsonObject[] | undefined) ?? []).map((row) => [...groups.map((g) => orDash(row[g])), ...cells(row)]);
  const total = [...groups.map((_, i) => (i === 0 ? "total" : "")), ...cells((report.totals ?? {}) as JsonObject)];
  return [`usage from ${report.from} to ${report.to} (UTC)`, "", ...table([header, ...rows, total])];
}

function formatAudit(page: JsonObject): string[] {
  const entries = (page.data as JsonObject[] | undefined) ?? [];
  if (entries.length === 0) return ["no entries"];
  const lines = entries.map((e) => `${e.at}  ${e.action}  ${orDash(e.account_id)}${e.key_id ? ` ${e.key_id}` : ""}  by ${e.actor} from ${orDash(e.address)}`);
  return page.next_cursor ? [...lines, `more: --cursor ${page.next_cursor}`] : lines;
}

/** A query string of the flags given (undefined ones left out). */
function queryOf(params: Record<string, string | undefined>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined) query.set(name, value);
  const text = query.toString();
  return text === "" ? "" : `?${text}`;
}

function need(positionals: string[], index: number, what: string): string {
  const value = positionals[index];
  if (!value) throw new CliError(`missing ${what} (see: bun run admin help)`, 2);
  return value;
}

/** Runs one command; returns the exit code. */
/** What `read` returns; what it throws, as a usage error (exit 2). */
function refuseAsUsage<T>(read: () => T): T {
  try {
    return read();
  } catch (err) {
    throw new CliError(`${(err as Error).message} (see: bun run admin help)`, 2);
  }
}

export async function runAdminCli(argv: string[], env: Record<string, string | undefined>, io: Io): Promise<number> {
  if (answerInfoFlags(argv, USAGE, io.out)) return 0;
  try {
    const parsed = refuseAsUsage(() =>
      parseArgs({
        args: argv,
        allowPositionals: true,
        options: {
          json: { type: "boolean", default: false },
          url: { type: "string" },
          plan: { type: "string" },
          "default-tier": { type: "string" },
          email: { type: "string" },
          rpm: { type: "string" },
          concurrency: { type: "string" },
          "monthly-tokens": { type: "string" },
          month: { type: "string" },
          suspended: { type: "string" },
          limit: { type: "string" },
          cursor: { type: "string" },
          from: { type: "string" },
          to: { type: "string" },
          "group-by": { type: "string" },
          account: { type: "string" },
          key: { type: "string" },
          action: { type: "string" },
          csv: { type: "boolean", default: false },
          name: { type: "string" },
          expires: { type: "string" },
          tiers: { type: "string" },
          "key-rpm": { type: "string" },
          "monthly-spend": { type: "string" },
          help: { type: "boolean", short: "h", default: false },
        },
      }),
    );
    const { values, positionals } = parsed;
    const [group, verb] = positionals;
    if (values.help || group === undefined || group === "help") {
      io.out(USAGE);
      return 0;
    }
    // Reads a file and calls the providers: no gateway, no admin token.
    if (group === "check-config") return await runCheckConfig(positionals[1], env, io);
    const token = env.ROUTELANE_ADMIN_TOKEN;
    if (!token) throw new CliError("ROUTELANE_ADMIN_TOKEN is not set", 2);
    const api = createApi(values.url ?? (env.ROUTELANE_URL || DEFAULT_URL), token);
    const show = (json: JsonObject, lines: () => string[]) => {
      io.out(values.json ? JSON.stringify(json, null, 2) : lines().join("\n"));
      return 0;
    };
    const id = (what: string) => encodeURIComponent(need(positionals, 2, what));

    if (group === "usage") {
      const accountId = encodeURIComponent(need(positionals, 1, "account ID"));
      if (values.month !== undefined && !/^\d{4}-(0[1-9]|1[0-2])$/.test(values.month)) {
        throw new CliError(`--month: expected YYYY-MM, got "${values.month}"`, 2);
      }
      const query = values.month === undefined ? "" : `?month=${values.month}`;
      const u = await api.call("GET", `admin/accounts/${accountId}/usage${query}`);
      return show(u, () => formatUsage(u));
    }
    if (group === "report") {
      const path = `admin/usage${queryOf({ from: values.from, to: values.to, group_by: values["group-by"], account: values.account, key: values.key })}`;
      if (values.csv) {
        io.out((await api.text(path, "text/csv")).trimEnd());
        return 0;
      }
      const report = await api.call("GET", path);
      return show(report, () => formatReport(report));
    }
    if (group === "audit") {
      const page = await api.call("GET", `admin/audit${queryOf({ account: values.account, action: values.action, limit: values.limit, cursor: values.cursor })}`);
      return show(page, () => formatAudit(page));
    }
    switch (`${group} ${verb ?? ""}`) {
      case "accounts list": {
        const query = queryOf({ plan: values.plan, suspended: values.suspended, email: values.email, limit: values.limit, cursor: values.cursor });
        const page = await api.call("GET", `admin/accounts${query}`);
        return show(page, () => formatAccountList(page));
      }
      case "accounts create": {
        if (!values.plan) throw new CliError("--plan is required (Starter, Pro or Enterprise)", 2);
        const body: JsonObject = { plan: values.plan };
        if (values["default-tier"] !== undefined) body.default_tier = values["default-tier"];
        if (values.email !== undefined) body.email = values.email;
        const a = await api.call("POST", "admin/accounts", body);
        return show(a, () => [
          `created account ${a.id} (plan ${a.plan}, default tier ${a.default_tier})`,
          `key ${orDash(a.key_id)}: ${a.key}`,
          "store the key now: it is shown only once",
        ]);
      }
      case "accounts show": {
        const a = await api.call("GET", `admin/accounts/${id("account ID")}`);
        return show(a, () => formatAccount(a));
      }
      case "accounts suspend":
      case "accounts unsuspend": {
        const a = await api.call("POST", `admin/accounts/${id("account ID")}/${verb}`);
        return show(a, () => [`account ${a.id} ${a.suspended ? "suspended" : "active (not suspended)"}`]);
      }
      case "accounts update": {
        const accountId = id("account ID");
        const body: JsonObject = {};
        if (values.plan !== undefined) body.plan = values.plan;
        if (values["default-tier"] !== undefined) body.default_tier = values["default-tier"];
        const limits: JsonObject = {};
        const rpm = parseLimit("rpm", values.rpm);
        const concurrency = parseLimit("concurrency", values.concurrency);
        const monthly = parseLimit("monthly-tokens", values["monthly-tokens"]);
        if (rpm !== undefined) limits.requests_per_minute = rpm;
        if (concurrency !== undefined) limits.concurrent_requests = concurrency;
        if (monthly !== undefined) limits.tokens_per_month = monthly;
        if (Object.keys(limits).length > 0) body.limits = limits;
        if (Object.keys(body).length === 0) throw new CliError("nothing to update: give --plan, --default-tier, --rpm, --concurrency or --monthly-tokens", 2);
        const a = await api.call("PATCH", `admin/accounts/${accountId}`, body);
        return show(a, () => ["updated", ...formatAccount(a)]);
      }
      case "keys create": {
        const k = await api.call("POST", `admin/accounts/${id("account ID")}/keys`, keyControlsOf(values));
        return show(k, () => [`key ${k.id}: ${k.key}`, "store the key now: it is shown only once"]);
      }
      case "keys update": {
        const body = keyControlsOf(values);
        if (Object.keys(body).length === 0) throw new CliError("nothing to update: give --name, --expires, --tiers, --key-rpm or --monthly-spend", 2);
        const k = await api.call("PATCH", `admin/keys/${id("key ID")}`, body);
        return show(k, () => ["updated", ...formatKeys([k])]);
      }
      case "keys list": {
        const list = await api.call("GET", `admin/accounts/${id("account ID")}/keys`);
        return show(list, () => formatKeys((list.data as JsonObject[] | undefined) ?? []));
      }
      case "keys revoke": {
        const k = await api.call("POST", `admin/keys/${id("key ID")}/revoke`);
        return show(k, () => [`key ${k.id} revoked at ${k.revoked_at}`]);
      }
      default:
        throw new CliError(`unknown command "${positionals.join(" ")}" (see: bun run admin help)`, 2);
    }
  } catch (err) {
    if (err instanceof CliError) {
      io.err(`error: ${err.message}`);
      return err.exitCode;
    }
    io.err(`error: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  }
}

if (import.meta.main) {
  const code = await runAdminCli(process.argv.slice(2), process.env, {
    out: (line) => console.log(line),
    err: (line) => console.error(line),
  });
  process.exit(code);
}
