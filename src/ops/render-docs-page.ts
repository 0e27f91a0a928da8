const escapeHtml = (text: string): string =>
  text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");

interface Operation {
  readonly summary?: string;
  readonly description?: string;
  readonly security?: ReadonlyArray<Record<string, unknown>>;
  readonly responses?: Record<string, { description?: string }>;
}

/**
 * `/docs`: a self-contained HTML page rendered from the OpenAPI document. It loads nothing from
 * elsewhere, so it works on the offline default start as well as behind a strict proxy.
 */
export function renderDocsPage(document: Record<string, unknown>): string {
  const info = document.info as { title: string; version: string; description: string };
  const paths = document.paths as Record<string, Record<string, Operation>>;
  const sections: string[] = [];
  for (const [path, methods] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      const auth = (operation.security ?? []).flatMap((s) => Object.keys(s)).join(", ") || "none";
      const responses = Object.entries(operation.responses ?? {})
        .map(([status, r]) => `<li><code>${escapeHtml(status)}</code> ${escapeHtml(r.description ?? "")}</li>`)
        .join("");
      sections.push(
        `<section><h2><code>${method.toUpperCase()} ${escapeHtml(path)}</code></h2><p>${escapeHtml(operation.summary ?? "")}</p>` +
          (operation.description ? `<p>${escapeHtml(operation.description)}</p>` : "") +
          `<p>Auth: ${escapeHtml(auth)}</p><ul>${responses}</ul></section>`,
      );
    }
  }
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(info.title)} API</title>
<style>body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}section{border-top:1px solid #ddd}code{background:#f4f4f4;padding:0 .2rem}</style>
</head><body><h1>${escapeHtml(info.title)} ${escapeHtml(info.version)}</h1><p>${escapeHtml(info.description)}</p>
<p>Machine-readable: <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1).</p>${sections.join("\n")}</body></html>`;
}
