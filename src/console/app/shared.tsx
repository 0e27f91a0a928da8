import { useState } from "preact/hooks";

export const PLANS = ["Starter", "Pro", "Enterprise"] as const;
export const TIERS = ["fast", "normal", "smart", "smart-plus"] as const;
export const PLAN_TIERS: Record<string, readonly string[]> = { Starter: ["fast", "normal"], Pro: ["fast", "normal", "smart"], Enterprise: TIERS };

export const usd = (value: number): string => `$${value.toFixed(value > 0 && value < 0.01 ? 6 : 2)}`;
export const when = (iso: string | null | undefined): string => (iso ? new Date(iso).toLocaleString() : "–");

/** A new key, shown this once, with a button that copies it. */
export function SecretKey({ value, onDone }: { value: string; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  return (
    <div class="secret" role="status">
      <p>
        <strong>The new key — shown only now.</strong> Store it before you leave this page:
      </p>
      <p>
        <code data-new-key>{value}</code>
      </p>
      <button
        type="button"
        class="primary"
        onClick={async () => {
          await navigator.clipboard.writeText(value).catch(() => {});
          setCopied(true);
        }}
      >
        {copied ? "Copied" : "Copy key"}
      </button>{" "}
      <button type="button" onClick={onDone}>
        I have stored it
      </button>
    </div>
  );
}

/** Runs an action, showing its error (in the API's words) where the form is. */
export function useAction(): [string | null, (run: () => Promise<void>) => Promise<void>] {
  const [error, setError] = useState<string | null>(null);
  return [
    error,
    async (run) => {
      setError(null);
      try {
        await run();
      } catch (e) {
        setError(e instanceof Error ? e.message : String(e));
      }
    },
  ];
}

export const ErrorLine = ({ error }: { error: string | null }) => (error ? <p class="error" role="alert">{error}</p> : null);
