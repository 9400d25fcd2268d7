// Light or dark, wherever the widget runs. The CSS speaks JupyterLab's --jp-* variables; in
// JupyterLab they come from the theme. Elsewhere the widget sets them itself on its own element:
// from VS Code's --vscode-* variables (VS Code cannot theme widgets), or from a light or dark
// palette when the host only marks dark mode (Colab: html[theme=dark]; marimo: .dark) or says
// nothing (prefers-color-scheme).

export type Host = "jupyterlab" | "vscode" | "colab" | "marimo" | "plain";

/** What the page says about its host and theme: read from the DOM by `readSignals`. */
export interface HostSignals {
  jupyterVariables: boolean;   // --jp-layout-color1 is defined where the widget sits
  jupyterLight: boolean | null; // body[data-jp-theme-light]
  vscode: "light" | "dark" | null; // body.vscode-light / vscode-dark / vscode-high-contrast
  colab: "light" | "dark" | null;  // html[theme]
  marimo: boolean;              // inside a marimo page
  darkClass: boolean;           // .dark on html, body or an ancestor (marimo's dark mode)
  prefersDark: boolean;         // prefers-color-scheme: dark
}

export interface Theme { host: Host; dark: boolean }

export function detectTheme(s: HostSignals): Theme {
  if (s.vscode) return { host: "vscode", dark: s.vscode === "dark" };
  if (s.colab) return { host: "colab", dark: s.colab === "dark" };
  if (s.jupyterVariables) return { host: "jupyterlab", dark: s.jupyterLight === false };
  if (s.marimo) return { host: "marimo", dark: s.darkClass };
  return { host: "plain", dark: s.darkClass || s.prefersDark };
}

const LIGHT: Record<string, string> = {
  "--jp-layout-color0": "#ffffff", "--jp-layout-color1": "#ffffff", "--jp-layout-color2": "#eeeeee",
  "--jp-layout-color3": "#bdbdbd", "--jp-ui-font-color0": "#000000", "--jp-ui-font-color1": "#212121",
  "--jp-ui-font-color2": "#616161", "--jp-border-color0": "#757575", "--jp-border-color1": "#bdbdbd",
  "--jp-border-color2": "#e0e0e0", "--jp-brand-color1": "#1976d2", "--jp-brand-color3": "#bbdefb",
  "--jp-error-color1": "#d32f2f", "--jp-warn-color1": "#e65100",
};

const DARK: Record<string, string> = {
  "--jp-layout-color0": "#111111", "--jp-layout-color1": "#212121", "--jp-layout-color2": "#424242",
  "--jp-layout-color3": "#616161", "--jp-ui-font-color0": "#ffffff", "--jp-ui-font-color1": "#e0e0e0",
  "--jp-ui-font-color2": "#bdbdbd", "--jp-border-color0": "#9e9e9e", "--jp-border-color1": "#616161",
  "--jp-border-color2": "#424242", "--jp-brand-color1": "#64b5f6", "--jp-brand-color3": "#1e3a5f",
  "--jp-error-color1": "#ef9a9a", "--jp-warn-color1": "#ffb74d",
};

// VS Code's own variables for each --jp-* one the CSS reads; the palette is the fallback.
const VSCODE: Record<string, string> = {
  "--jp-layout-color0": "--vscode-editor-background", "--jp-layout-color1": "--vscode-editor-background",
  "--jp-layout-color2": "--vscode-editorWidget-background", "--jp-ui-font-color0": "--vscode-editor-foreground",
  "--jp-ui-font-color1": "--vscode-editor-foreground", "--jp-ui-font-color2": "--vscode-descriptionForeground",
  "--jp-border-color0": "--vscode-contrastBorder", "--jp-border-color1": "--vscode-widget-border",
  "--jp-border-color2": "--vscode-editorGroup-border", "--jp-brand-color1": "--vscode-focusBorder",
  "--jp-error-color1": "--vscode-errorForeground", "--jp-warn-color1": "--vscode-editorWarning-foreground",
};

/** The --jp-* variables the widget sets on its element: none in JupyterLab, which has them. */
export function themeVariables(theme: Theme): Record<string, string> {
  if (theme.host === "jupyterlab") return {};
  const palette = theme.dark ? DARK : LIGHT;
  if (theme.host !== "vscode") return { ...palette };
  const mapped: Record<string, string> = {};
  for (const [name, value] of Object.entries(palette)) {
    mapped[name] = VSCODE[name] ? `var(${VSCODE[name]}, ${value})` : value;
  }
  return mapped;
}

export function readSignals(el: HTMLElement): HostSignals {
  const html = document.documentElement;
  const body = document.body;
  const root = el.getRootNode();
  const host = root instanceof ShadowRoot ? (root.host as HTMLElement) : el;
  const vscodeClass = ["vscode-dark", "vscode-high-contrast", "vscode-light"].find((c) => body?.classList.contains(c));
  const colab = html.getAttribute("theme");
  const jpLight = body?.getAttribute("data-jp-theme-light");
  return {
    // read on <html>: the widget's own element carries the variables it set itself
    jupyterVariables: getComputedStyle(html).getPropertyValue("--jp-layout-color1").trim() !== "",
    jupyterLight: jpLight === null || jpLight === undefined ? null : jpLight === "true",
    vscode: vscodeClass ? (vscodeClass === "vscode-light" ? "light" : "dark") : null,
    colab: colab === "dark" || colab === "light" ? colab : null,
    marimo: document.querySelector("marimo-app, #App, [data-marimo]") !== null || host.closest("marimo-anywidget, [class*=marimo]") !== null,
    darkClass: html.classList.contains("dark") || body?.classList.contains("dark") || host.closest(".dark") !== null,
    prefersDark: typeof matchMedia === "function" && matchMedia("(prefers-color-scheme: dark)").matches,
  };
}

/** Keep `el` themed: now, and whenever the host switches theme. Returns the stop function. */
export function followTheme(el: HTMLElement): () => void {
  let applied: string[] = [];
  const apply = () => {
    const theme = detectTheme(readSignals(el));
    const vars = themeVariables(theme);
    for (const name of applied) if (!(name in vars)) el.style.removeProperty(name);
    for (const [name, value] of Object.entries(vars)) el.style.setProperty(name, value);
    applied = Object.keys(vars);
    el.dataset.kcHost = theme.host;
    el.dataset.kcTheme = theme.dark ? "dark" : "light";
  };
  apply();
  const watch = { attributes: true, attributeFilter: ["class", "theme", "data-jp-theme-light", "data-theme"] };
  const observer = new MutationObserver(apply);
  observer.observe(document.documentElement, watch);
  if (document.body) observer.observe(document.body, watch);
  const media = typeof matchMedia === "function" ? matchMedia("(prefers-color-scheme: dark)") : null;
  media?.addEventListener("change", apply);
  return () => {
    observer.disconnect();
    media?.removeEventListener("change", apply);
  };
}
