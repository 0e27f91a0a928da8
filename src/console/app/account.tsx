import { useEffect, useState } from "preact/hooks";
import { api } from "./api.ts";
import { ChartFigure, type Series } from "./chart.tsx";
import { ErrorLine, PLANS, PLAN_TIERS, SecretKey, useAction, usd, when } from "./shared.tsx";

interface Account {
  id: string;
  plan: string;
  default_tier: string;
  email: string | null;
  suspended: boolean;
  limits: { requests_per_minute: number | null; concurrent_requests: number | null; tokens_per_month: number | null };
  created_at: string;
}

interface Key {
  id: string;
  name: string | null;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  expires_at: string | null;
  allowed_tiers: string[] | null;
  requests_per_minute: number | null;
  monthly_spend_usd: number | null;
  month: { requests: number; cost_usd: number };
}

interface ReportRow {
  day: string;
  tier?: string;
  model?: string | null;
  requests: number;
  input_tokens: number;
  output_tokens: number;
  cache_hits: number;
  errors: number;
  cost_usd: number;
}

interface Report {
  data: ReportRow[];
  totals: Omit<ReportRow, "day">;
}

/** The form of a key's controls, used to issue a key and to change one. */
function KeyControlsForm({ plan, initial, submit, label }: { plan: string; initial?: Key; submit: (body: Record<string, unknown>) => Promise<void>; label: string }) {
  const [name, setName] = useState(initial?.name ?? "");
  const [expires, setExpires] = useState(initial?.expires_at ? initial.expires_at.slice(0, 16) : "");
  const [tiers, setTiers] = useState<string[]>(initial?.allowed_tiers ?? [...(PLAN_TIERS[plan] ?? [])]);
  const [rpm, setRpm] = useState(initial?.requests_per_minute?.toString() ?? "");
  const [spend, setSpend] = useState(initial?.monthly_spend_usd?.toString() ?? "");
  const [error, act] = useAction();
  const planTiers = PLAN_TIERS[plan] ?? [];
  return (
    <form
      class="inline"
      onSubmit={(event) => {
        event.preventDefault();
        void act(() =>
          submit({
            name: name === "" ? null : name,
            expires_at: expires === "" ? null : new Date(expires).toISOString(),
            allowed_tiers: tiers.length === planTiers.length ? null : tiers,
            requests_per_minute: rpm === "" ? null : Number(rpm),
            monthly_spend_usd: spend === "" ? null : Number(spend),
          }),
        );
      }}
    >
      <label>
        Name
        <input name="name" value={name} onInput={(e) => setName(e.currentTarget.value)} maxLength={100} />
      </label>
      <label>
        Expires (local time)
        <input name="expires_at" type="datetime-local" value={expires} onInput={(e) => setExpires(e.currentTarget.value)} />
      </label>
      <fieldset>
        <legend>Allowed tiers</legend>
        {planTiers.map((tier) => (
          <label>
            <input
              type="checkbox"
              checked={tiers.includes(tier)}
              onChange={(e) => setTiers((all) => (e.currentTarget.checked ? [...all, tier] : all.filter((t) => t !== tier)))}
            />
            {tier}
          </label>
        ))}
      </fieldset>
      <label>
        Requests per minute
        <input name="requests_per_minute" type="number" min={1} value={rpm} onInput={(e) => setRpm(e.currentTarget.value)} placeholder="no cap" />
      </label>
      <label>
        Monthly spend cap (USD)
        <input name="monthly_spend_usd" type="number" min={0.000001} step="any" value={spend} onInput={(e) => setSpend(e.currentTarget.value)} placeholder="no cap" />
      </label>
      <button class="primary" type="submit">{label}</button>
      <ErrorLine error={error} />
    </form>
  );
}

function controlsText(key: Key): string {
  const parts = [
    key.allowed_tiers ? `tiers: ${key.allowed_tiers.join(", ")}` : "",
    key.requests_per_minute !== null ? `${key.requests_per_minute}/min` : "",
    key.monthly_spend_usd !== null ? `cap ${usd(key.monthly_spend_usd)}/month` : "",
    key.expires_at ? `expires ${when(key.expires_at)}` : "",
  ].filter(Boolean);
  return parts.length === 0 ? "none" : parts.join("; ");
}

/** Usage of the account this month by day, by tier and by model, as charts with the cost. */
function Usage({ accountId, version }: { accountId: string; version: number }) {
  const [byTier, setByTier] = useState<Report | null>(null);
  const [byModel, setByModel] = useState<Report | null>(null);
  const [error, act] = useAction();
  useEffect(() => {
    void act(async () => {
      const [tiers, models] = await Promise.all([
        api<Report>("GET", `/admin/usage?account=${accountId}&group_by=day,tier`),
        api<Report>("GET", `/admin/usage?account=${accountId}&group_by=day,model`),
      ]);
      setByTier(tiers);
      setByModel(models);
    });
  }, [accountId, version]);
  const pivot = (report: Report | null, column: "tier" | "model"): { labels: string[]; series: Series[] } => {
    const rows = report?.data ?? [];
    const labels = [...new Set(rows.map((r) => r.day))].sort();
    const names = [...new Set(rows.map((r) => String(r[column] ?? "none")))].sort();
    return { labels, series: names.map((name) => ({ label: name, data: labels.map((day) => rows.filter((r) => r.day === day && String(r[column] ?? "none") === name).reduce((n, r) => n + r.requests, 0)) })) };
  };
  const tiers = pivot(byTier, "tier");
  const models = pivot(byModel, "model");
  const totals = byTier?.totals;
  return (
    <>
      <h2 id="usage">Usage this month (UTC)</h2>
      <ErrorLine error={error} />
      <section class="stats" aria-labelledby="usage">
        <div class="stat"><b data-stat="account-requests">{totals?.requests ?? "–"}</b><span>requests</span></div>
        <div class="stat"><b>{totals ? totals.input_tokens + totals.output_tokens : "–"}</b><span>billable tokens</span></div>
        <div class="stat"><b>{totals?.cache_hits ?? "–"}</b><span>cache hits</span></div>
        <div class="stat"><b>{totals?.errors ?? "–"}</b><span>errors</span></div>
        <div class="stat"><b data-stat="account-cost">{totals ? usd(totals.cost_usd) : "–"}</b><span>cost</span></div>
      </section>
      <div class="grid">
        <ChartFigure title="Requests by day and tier" kind="bar" stacked unit="requests" labels={tiers.labels} series={tiers.series} />
        <ChartFigure title="Requests by day and model" kind="bar" stacked unit="requests" labels={models.labels} series={models.series} />
        <ChartFigure
          title="Cost by day"
          kind="bar"
          unit="USD"
          labels={tiers.labels}
          series={[{ label: "cost", data: tiers.labels.map((day) => (byTier?.data ?? []).filter((r) => r.day === day).reduce((n, r) => n + r.cost_usd, 0)) }]}
        />
      </div>
    </>
  );
}

/** One account: plan, default tier, limits, suspension, keys with their controls, and usage. */
export function AccountPage({ id }: { id: string }) {
  const [account, setAccount] = useState<Account | null>(null);
  const [keys, setKeys] = useState<Key[]>([]);
  const [newKey, setNewKey] = useState<string | null>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const [version, setVersion] = useState(0);
  const [error, act] = useAction();
  const reload = () => setVersion((v) => v + 1);

  useEffect(() => {
    void act(async () => {
      const [a, k] = await Promise.all([api<Account>("GET", `/admin/accounts/${id}`), api<{ data: Key[] }>("GET", `/admin/accounts/${id}/keys`)]);
      setAccount(a);
      setKeys(k.data);
    });
  }, [id, version]);

  if (!account) return <>{error ? <ErrorLine error={error} /> : <p>Loading…</p>}</>;
  return (
    <>
      <p><a href="#/accounts">← Accounts</a></p>
      <h1>
        Account {account.id} {account.suspended ? <span class="badge bad">suspended</span> : <span class="badge ok">active</span>}
      </h1>
      <ErrorLine error={error} />
      <section class="card" aria-labelledby="settings">
        <h2 id="settings">Plan and limits</h2>
        <p class="muted">
          {account.email ?? "no e-mail"} · created {when(account.created_at)} · limits: {account.limits.requests_per_minute ?? "no cap"} requests/min,{" "}
          {account.limits.concurrent_requests ?? "no cap"} concurrent, {account.limits.tokens_per_month ?? "no cap"} tokens/month
        </p>
        <AccountSettings account={account} onSaved={reload} />
        <p>
          <button
            type="button"
            class={account.suspended ? "primary" : "danger"}
            onClick={() =>
              void act(async () => {
                await api("POST", `/admin/accounts/${id}/${account.suspended ? "unsuspend" : "suspend"}`);
                reload();
              })
            }
          >
            {account.suspended ? "Unsuspend" : "Suspend"} account
          </button>
        </p>
      </section>
      <section class="card" aria-labelledby="keys">
        <h2 id="keys">Keys</h2>
        {newKey && <SecretKey value={newKey} onDone={() => setNewKey(null)} />}
        <table>
          <thead>
            <tr>
              <th scope="col">key</th>
              <th scope="col">name</th>
              <th scope="col">created</th>
              <th scope="col">last use</th>
              <th scope="col">controls</th>
              <th scope="col" class="num">this month</th>
              <th scope="col">status</th>
              <th scope="col"><span class="muted">actions</span></th>
            </tr>
          </thead>
          <tbody>
            {keys.map((key) => (
              <tr data-key={key.id}>
                <td><code>{key.prefix}…</code><br /><span class="muted">{key.id}</span></td>
                <td>{key.name ?? "–"}</td>
                <td>{when(key.created_at)}</td>
                <td>{when(key.last_used_at)}</td>
                <td>{controlsText(key)}</td>
                <td class="num">{key.month.requests} req · {usd(key.month.cost_usd)}</td>
                <td>{key.revoked_at ? <span class="badge bad">revoked</span> : <span class="badge ok">active</span>}</td>
                <td>
                  {!key.revoked_at && (
                    <>
                      <button type="button" onClick={() => setEditing(editing === key.id ? null : key.id)} aria-expanded={editing === key.id}>
                        Controls
                      </button>{" "}
                      <button
                        type="button"
                        class="danger"
                        aria-label={`Revoke key ${key.prefix}`}
                        onClick={() => {
                          if (window.confirm(`Revoke key ${key.prefix}…? Its next request is refused.`)) void act(async () => {
                              await api("POST", `/admin/keys/${key.id}/revoke`);
                              reload();
                            });
                        }}
                      >
                        Revoke
                      </button>
                    </>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {editing && (
          <div class="card">
            <h2>Controls of {editing}</h2>
            <KeyControlsForm
              plan={account.plan}
              initial={keys.find((k) => k.id === editing)}
              label="Save controls"
              submit={async (body) => {
                await api("PATCH", `/admin/keys/${editing}`, body);
                setEditing(null);
                reload();
              }}
            />
          </div>
        )}
        <h2>Issue a key</h2>
        <KeyControlsForm
          plan={account.plan}
          label="Issue key"
          submit={async (body) => {
            const issued = await api<{ key: string }>("POST", `/admin/accounts/${id}/keys`, body);
            setNewKey(issued.key);
            reload();
          }}
        />
      </section>
      <section class="card" aria-labelledby="usage">
        <Usage accountId={id} version={version} />
      </section>
    </>
  );
}

function AccountSettings({ account, onSaved }: { account: Account; onSaved: () => void }) {
  const [plan, setPlan] = useState(account.plan);
  const [tier, setTier] = useState(account.default_tier);
  const [rpm, setRpm] = useState(account.limits.requests_per_minute?.toString() ?? "");
  const [concurrency, setConcurrency] = useState(account.limits.concurrent_requests?.toString() ?? "");
  const [tokens, setTokens] = useState(account.limits.tokens_per_month?.toString() ?? "");
  const [error, act] = useAction();
  const number = (text: string) => (text === "" ? null : Number(text));
  return (
    <form
      class="inline"
      onSubmit={(event) => {
        event.preventDefault();
        const body: Record<string, unknown> = { plan, default_tier: tier };
        if (plan === "Enterprise") body.limits = { requests_per_minute: number(rpm), concurrent_requests: number(concurrency), tokens_per_month: number(tokens) };
        void act(async () => {
          await api("PATCH", `/admin/accounts/${account.id}`, body);
          onSaved();
        });
      }}
    >
      <label>
        Plan
        <select value={plan} onChange={(e) => setPlan(e.currentTarget.value)}>
          {PLANS.map((p) => <option value={p}>{p}</option>)}
        </select>
      </label>
      <label>
        Default tier
        <select value={tier} onChange={(e) => setTier(e.currentTarget.value)}>
          {(PLAN_TIERS[plan] ?? []).map((t) => <option value={t}>{t}</option>)}
        </select>
      </label>
      {plan === "Enterprise" && (
        <>
          <label>
            Requests per minute
            <input type="number" min={1} value={rpm} onInput={(e) => setRpm(e.currentTarget.value)} placeholder="no cap" />
          </label>
          <label>
            Concurrent requests
            <input type="number" min={1} value={concurrency} onInput={(e) => setConcurrency(e.currentTarget.value)} placeholder="no cap" />
          </label>
          <label>
            Tokens per month
            <input type="number" min={1} value={tokens} onInput={(e) => setTokens(e.currentTarget.value)} placeholder="no cap" />
          </label>
        </>
      )}
      <button class="primary" type="submit">Save</button>
      <ErrorLine error={error} />
    </form>
  );
}
