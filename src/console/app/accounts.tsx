import { useEffect, useState } from "preact/hooks";
import { api } from "./api.ts";
import { ErrorLine, PLANS, PLAN_TIERS, SecretKey, useAction, usd, when } from "./shared.tsx";

interface ListedAccount {
  id: string;
  plan: string;
  default_tier: string;
  email: string | null;
  suspended: boolean;
  keys: { active: number; total: number };
  last_used_at: string | null;
  month: { tokens: number; requests: number; cost_usd: number };
}

interface Page {
  data: ListedAccount[];
  next_cursor: string | null;
  month: string;
}

function CreateAccount({ onCreated }: { onCreated: () => void }) {
  const [plan, setPlan] = useState<string>("Pro");
  const [tier, setTier] = useState("normal");
  const [email, setEmail] = useState("");
  const [key, setKey] = useState<{ id: string; key: string } | null>(null);
  const [error, act] = useAction();
  return (
    <section class="card" aria-labelledby="create-account">
      <h2 id="create-account">Create an account</h2>
      {key ? (
        <>
          <p>
            Account <a href={`#/accounts/${key.id}`}>{key.id}</a> created.
          </p>
          <SecretKey value={key.key} onDone={() => setKey(null)} />
        </>
      ) : (
        <form
          class="inline"
          onSubmit={(event) => {
            event.preventDefault();
            void act(async () => {
              const created = await api<{ id: string; key: string }>("POST", "/admin/accounts", { plan, default_tier: tier, email: email === "" ? null : email });
              setKey(created);
              setEmail("");
              onCreated();
            });
          }}
        >
          <label>
            Plan
            <select name="plan" value={plan} onChange={(e) => setPlan(e.currentTarget.value)}>
              {PLANS.map((p) => <option value={p}>{p}</option>)}
            </select>
          </label>
          <label>
            Default tier
            <select name="default_tier" value={tier} onChange={(e) => setTier(e.currentTarget.value)}>
              {(PLAN_TIERS[plan] ?? []).map((t) => <option value={t}>{t}</option>)}
            </select>
          </label>
          <label>
            E-mail
            <input name="email" type="email" value={email} onInput={(e) => setEmail(e.currentTarget.value)} placeholder="ops@example.com" />
          </label>
          <button class="primary" type="submit">Create account</button>
        </form>
      )}
      <ErrorLine error={error} />
    </section>
  );
}

/** Accounts: search by e-mail, filter by plan and suspension, page on; create one. */
export function Accounts() {
  const [email, setEmail] = useState("");
  const [plan, setPlan] = useState("");
  const [suspended, setSuspended] = useState("");
  const [pages, setPages] = useState<string[]>([""]);
  const [page, setPage] = useState<Page | null>(null);
  const [version, setVersion] = useState(0);
  const [error, act] = useAction();
  const cursor = pages.at(-1) ?? "";

  useEffect(() => {
    const query = new URLSearchParams({ limit: "25" });
    if (email) query.set("email", email);
    if (plan) query.set("plan", plan);
    if (suspended) query.set("suspended", suspended);
    if (cursor) query.set("cursor", cursor);
    void act(async () => setPage(await api<Page>("GET", `/admin/accounts?${query}`)));
  }, [email, plan, suspended, cursor, version]);

  const restart = () => setPages([""]);
  return (
    <>
      <h1>Accounts</h1>
      <CreateAccount onCreated={() => setVersion((v) => v + 1)} />
      <section class="card" aria-labelledby="account-list">
        <h2 id="account-list">All accounts {page && <span class="muted">(usage of {page.month}, UTC)</span>}</h2>
        {/* biome-ignore lint/a11y/useSemanticElements: the form is the search landmark; older browsers know no <search> element */}
        <form class="inline" role="search" onSubmit={(e) => e.preventDefault()}>
          <label>
            Search e-mail
            <input type="search" value={email} onInput={(e) => {
                setEmail(e.currentTarget.value);
                restart();
              }} />
          </label>
          <label>
            Plan
            <select value={plan} onChange={(e) => {
                setPlan(e.currentTarget.value);
                restart();
              }}>
              <option value="">any</option>
              {PLANS.map((p) => <option value={p}>{p}</option>)}
            </select>
          </label>
          <label>
            Suspended
            <select value={suspended} onChange={(e) => {
                setSuspended(e.currentTarget.value);
                restart();
              }}>
              <option value="">any</option>
              <option value="false">no</option>
              <option value="true">yes</option>
            </select>
          </label>
        </form>
        <ErrorLine error={error} />
        <table>
          <thead>
            <tr>
              <th scope="col">account</th>
              <th scope="col">e-mail</th>
              <th scope="col">plan</th>
              <th scope="col">status</th>
              <th scope="col" class="num">keys</th>
              <th scope="col">last use</th>
              <th scope="col" class="num">requests</th>
              <th scope="col" class="num">tokens</th>
              <th scope="col" class="num">cost</th>
            </tr>
          </thead>
          <tbody>
            {(page?.data ?? []).map((a) => (
              <tr>
                <td><a href={`#/accounts/${a.id}`}>{a.id}</a></td>
                <td>{a.email ?? "–"}</td>
                <td>{a.plan}</td>
                <td>{a.suspended ? <span class="badge bad">suspended</span> : <span class="badge ok">active</span>}</td>
                <td class="num">{a.keys.active}</td>
                <td>{when(a.last_used_at)}</td>
                <td class="num">{a.month.requests}</td>
                <td class="num">{a.month.tokens}</td>
                <td class="num">{usd(a.month.cost_usd)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {page?.data.length === 0 && <p class="muted">No accounts match.</p>}
        <p>
          {pages.length > 1 && <button type="button" onClick={() => setPages((p) => p.slice(0, -1))}>Previous page</button>}{" "}
          {page?.next_cursor && <button type="button" onClick={() => setPages((p) => [...p, page.next_cursor!])}>Next page</button>}
        </p>
      </section>
    </>
  );
}
