const STYLE = `
body { font: 16px/1.5 system-ui, sans-serif; margin: 0; background: #f4f5f7; color: #1d2330; }
main { max-width: 24rem; margin: 12vh auto; background: #fff; padding: 2rem; border-radius: 8px; box-shadow: 0 1px 4px #0002; }
h1 { font-size: 1.4rem; margin: 0 0 1rem; }
label { display: block; font-weight: 600; margin-bottom: .25rem; }
input { width: 100%; box-sizing: border-box; padding: .5rem; font: inherit; border: 1px solid #8a93a6; border-radius: 4px; }
input:focus, button:focus { outline: 3px solid #3b6fd8; outline-offset: 1px; }
button { margin-top: 1rem; padding: .5rem 1.25rem; font: inherit; background: #2453b3; color: #fff; border: 0; border-radius: 4px; cursor: pointer; }
p[role=alert] { color: #a3201b; font-weight: 600; }
p.hint { color: #4a5468; font-size: .9rem; }`;

/** The sign-in page's one inline style, allowed by its hash and nothing else. */
export const SIGN_IN_STYLE_HASH = `sha256-${new Bun.CryptoHasher("sha256").update(STYLE).digest("base64")}`;

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The console's sign-in page: a plain HTML form posted by the browser itself, with no script at
 * all, so the admin token is never in reach of the page's JavaScript nor in a URL.
 */
export function renderSignInPage(message?: string): string {
  const alert = message ? `<p role="alert">${escapeHtml(message)}</p>` : "";
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign in · Routelane console</title>
<link rel="icon" href="data:,">
<style>${STYLE}</style>
</head>
<body>
<main>
<h1>Routelane console</h1>
${alert}
<form method="post" action="/console/sign-in">
<label for="token">Admin token</label>
<input id="token" name="token" type="password" autocomplete="current-password" required autofocus>
<button type="submit">Sign in</button>
</form>
<p class="hint">The value of <code>ROUTELANE_ADMIN_TOKEN</code>. The session lasts 12 hours.</p>
</main>
</body>
</html>
`;
}
