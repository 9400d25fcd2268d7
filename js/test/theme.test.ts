import { describe, expect, it } from "vitest";
import { type HostSignals, detectTheme, themeVariables } from "../src/canvas/theme";

const nothing: HostSignals = { jupyterVariables: false, jupyterLight: null, vscode: null, colab: null,
  marimo: false, darkClass: false, prefersDark: false };

describe("detectTheme", () => {
  it("reads each host's own mark of dark mode", () => {
    expect(detectTheme({ ...nothing, jupyterVariables: true, jupyterLight: false })).toEqual({ host: "jupyterlab", dark: true });
    expect(detectTheme({ ...nothing, jupyterVariables: true, jupyterLight: true })).toEqual({ host: "jupyterlab", dark: false });
    expect(detectTheme({ ...nothing, vscode: "dark" })).toEqual({ host: "vscode", dark: true });
    expect(detectTheme({ ...nothing, colab: "dark" })).toEqual({ host: "colab", dark: true });
    expect(detectTheme({ ...nothing, marimo: true, darkClass: true })).toEqual({ host: "marimo", dark: true });
    expect(detectTheme({ ...nothing, prefersDark: true })).toEqual({ host: "plain", dark: true });
    expect(detectTheme(nothing)).toEqual({ host: "plain", dark: false });
  });

  it("trusts the host over the system: a light Colab on a dark system stays light", () => {
    expect(detectTheme({ ...nothing, colab: "light", prefersDark: true }).dark).toBe(false);
    expect(detectTheme({ ...nothing, marimo: true, prefersDark: true }).dark).toBe(false);
    // VS Code's classes win even where it defines some --jp-* variables for widgets
    expect(detectTheme({ ...nothing, vscode: "light", jupyterVariables: true }).host).toBe("vscode");
  });
});

describe("themeVariables", () => {
  it("leaves JupyterLab's own variables alone", () => {
    expect(themeVariables({ host: "jupyterlab", dark: true })).toEqual({});
  });

  it("sets a dark palette where the host only says dark", () => {
    const vars = themeVariables({ host: "colab", dark: true });
    expect(vars["--jp-layout-color1"]).toBe("#212121");
    expect(vars["--jp-ui-font-color1"]).toBe("#e0e0e0");
    expect(themeVariables({ host: "plain", dark: false })["--jp-layout-color1"]).toBe("#ffffff");
  });

  it("maps VS Code's variables, with the palette as fallback", () => {
    const vars = themeVariables({ host: "vscode", dark: true });
    expect(vars["--jp-layout-color1"]).toBe("var(--vscode-editor-background, #212121)");
    expect(vars["--jp-ui-font-color1"]).toBe("var(--vscode-editor-foreground, #e0e0e0)");
  });
});
