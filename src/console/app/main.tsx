import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { AccountPage } from "./account.tsx";
import { Accounts } from "./accounts.tsx";
import { loadSession, signInPage, signOut } from "./api.ts";
import { JobPage, Jobs } from "./jobs.tsx";
import { Overview } from "./overview.tsx";
import { Routing } from "./routing.tsx";

const NAV = [
  ["#/overview", "Overview"],
  ["#/accounts", "Accounts"],
  ["#/routing", "Routing"],
  ["#/jobs", "Smart+ jobs"],
] as const;

function useHash(): string {
  const [hash, setHash] = useState(window.location.hash || "#/overview");
  useEffect(() => {
    const changed = () => setHash(window.location.hash || "#/overview");
    window.addEventListener("hashchange", changed);
    return () => window.removeEventListener("hashchange", changed);
  }, []);
  return hash;
}

function Page({ hash }: { hash: string }) {
  const [, section, id] = hash.split("/");
  if (section === "accounts" && id) return <AccountPage id={decodeURIComponent(id)} />;
  if (section === "accounts") return <Accounts />;
  if (section === "routing") return <Routing />;
  if (section === "jobs" && id) return <JobPage id={decodeURIComponent(id)} />;
  if (section === "jobs") return <Jobs />;
  return <Overview />;
}

function App() {
  const hash = useHash();
  const section = `#/${hash.split("/")[1] ?? "overview"}`;
  useEffect(() => {
    const title = NAV.find(([href]) => href === section)?.[1] ?? "Overview";
    document.title = `${title} · Routelane console`;
    document.getElementById("main")?.focus();
  }, [hash]);
  return (
    <>
      {/* biome-ignore lint/a11y/useValidAnchor: the console routes on the hash, so the skip link moves focus instead of navigating */}
      <a class="skip" href="#main" onClick={(e) => {
          e.preventDefault();
          document.getElementById("main")?.focus();
        }}>
        Skip to content
      </a>
      <header>
        <strong>Routelane</strong>
        <nav aria-label="Console">
          {NAV.map(([href, label]) => (
            <a href={href} aria-current={section === href ? "page" : undefined}>
              {label}
            </a>
          ))}
        </nav>
        <button type="button" onClick={() => void signOut()}>
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        <Page hash={hash} />
      </main>
    </>
  );
}

if (await loadSession()) render(<App />, document.getElementById("root")!);
else signInPage();
