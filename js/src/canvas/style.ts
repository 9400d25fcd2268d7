// The widget's CSS, in JupyterLab's theme variables (light and dark) with fallbacks.
export const CSS = `
.kc-root { display: flex; flex-wrap: wrap; gap: 8px; container-type: inline-size; font: 12px var(--jp-ui-font-family, sans-serif);
  color: var(--jp-ui-font-color1, #222); background: var(--jp-layout-color1, #fff); outline: none; }
.kc-side { width: 210px; display: flex; flex-direction: column; gap: 8px; }
.kc-palette { max-height: 300px; overflow: auto; border: 1px solid var(--jp-border-color1, #ccc); padding: 4px; }
.kc-search, .kc-field { width: 100%; box-sizing: border-box; background: var(--jp-layout-color0, #fff);
  color: var(--jp-ui-font-color1, #222); border: 1px solid var(--jp-border-color1, #ccc); }
.kc-group { font-weight: bold; margin-top: 6px; color: var(--jp-ui-font-color2, #555); }
.kc-entry { padding: 2px 6px; cursor: grab; user-select: none; border-radius: 3px; }
.kc-entry:hover, .kc-entry:focus { background: var(--jp-layout-color2, #eee); }
.kc-inspector { border: 1px solid var(--jp-border-color1, #ccc); padding: 6px; overflow: auto; max-height: 320px; }
.kc-row { display: grid; grid-template-columns: 90px 1fr; gap: 4px; margin: 2px 0; align-items: center; }
.kc-row[hidden] { display: none; }
.kc-row > span:first-child { overflow-wrap: anywhere; line-height: 1.15; } /* a long field name wraps, never clipped */
.kc-title { font-weight: bold; margin-bottom: 4px; }
.kc-row.kc-setting { grid-template-columns: 90px 1fr auto; } .kc-call-settings { margin-top: 6px; }
.kc-nodes { margin-top: 8px; border-top: 1px solid var(--jp-border-color2, #ddd); padding-top: 4px; }
.kc-node { margin: 4px 0; padding: 3px; border-radius: 3px; background: var(--jp-layout-color2, #f3f3f3); }
.kc-node-title { font-weight: bold; } .kc-node-row { font-family: var(--jp-code-font-family, monospace); font-size: 11px; word-break: break-all; }
.kc-muted { color: var(--jp-ui-font-color2, #777); }
.kc-error { color: var(--jp-error-color1, #c00); white-space: pre-wrap; margin: 4px 0; }
.kc-main { flex: 1; min-width: 0; display: flex; flex-direction: column; }
/* a narrow notebook: the drawing takes the whole width, palette and inspector go under it */
@container (max-width: 720px) {
  .kc-main { flex: 1 1 100%; }
  .kc-side { order: 2; width: 100%; flex-direction: row; flex-wrap: wrap; }
  .kc-side > * { flex: 1 1 220px; min-width: 0; }
}
.kc-toolbar { position: relative; display: flex; gap: 2px; margin-bottom: 4px; flex-wrap: nowrap; align-items: center; white-space: nowrap;
  min-height: var(--jp-private-toolbar-height, 28px); padding: 0 4px;
  background: var(--jp-toolbar-background, var(--jp-layout-color1, #fff));
  border-bottom: var(--jp-border-width, 1px) solid var(--jp-toolbar-border-color, var(--jp-border-color1, #ccc)); }
.kc-button { background: transparent; color: var(--jp-ui-font-color1, #222); border: none; border-radius: var(--jp-border-radius, 2px);
  height: 24px; padding: 0 6px; cursor: pointer; font: var(--jp-ui-font-size1, 13px) var(--jp-ui-font-family, sans-serif); }
.kc-button:hover { background: var(--jp-layout-color2, #eee); }
.kc-button:active { background: var(--jp-layout-color3, #ddd); }
.kc-button:focus-visible { outline: 1px solid var(--jp-brand-color1, #1976d2); }
.kc-toolbar-group { display: inline-flex; gap: 2px; align-items: center; padding-right: 4px; margin-right: 2px;
  border-right: 1px solid var(--jp-border-color2, #ddd); }
.kc-toolbar-menu { position: absolute; right: 4px; top: 100%; z-index: 20; display: flex; flex-direction: column; gap: 2px;
  padding: 4px; background: var(--jp-layout-color1, #fff); border: 1px solid var(--jp-border-color1, #ccc);
  box-shadow: var(--jp-elevation-z4, 0 2px 6px rgba(0,0,0,.2)); }
.kc-toolbar-menu[hidden] { display: none; }
.kc-toolbar-menu .kc-toolbar-group { flex-direction: column; align-items: stretch; border-right: none; padding: 2px 0;
  border-bottom: 1px solid var(--jp-border-color2, #ddd); }
.kc-toolbar-menu .kc-toolbar-group:last-child { border-bottom: none; }
.kc-toolbar-menu .kc-button { text-align: left; }
.kc-toolbar-more { margin-left: auto; }
.kc-toolbar-more[hidden] { display: none !important; }
.kc-flow-toggle { position: absolute; left: 6px; bottom: 6px; min-width: 28px; height: 24px; padding: 0 4px; font-size: 15px; line-height: 1;
  background: var(--jp-layout-color1, #fff); border: 1px solid var(--jp-border-color1, #bbb); border-radius: 3px;
  color: var(--jp-ui-font-color1, #333); cursor: pointer; }
.kc-flow-toggle[aria-pressed="true"] { background: var(--jp-layout-color3, #d6d6d6); }
.kc-stage { position: relative; overflow: hidden; border: 1px solid var(--jp-border-color1, #ccc);
  background: var(--jp-layout-color0, #fafafa); }
.kc-svg { width: 100%; height: 100%; display: block; touch-action: none; user-select: none;
  transform-origin: 0 0; will-change: transform; }
.kc-box rect { fill: var(--jp-layout-color1, #fff); stroke: var(--jp-border-color0, #666); stroke-width: 1.2; }
.kc-box:focus { outline: none; } .kc-box:focus rect { stroke: var(--jp-brand-color1, #1976d2); stroke-width: 2; }
.kc-selected rect { stroke: var(--jp-brand-color1, #1976d2); stroke-width: 2.5; }
.kc-highlight rect { fill: var(--jp-brand-color3, #bbdefb); stroke: var(--jp-brand-color1, #1976d2); stroke-width: 3; }
.kc-player { margin-top: 6px; padding: 4px; border: 1px solid var(--jp-border-color1, #ccc); }
.kc-step { font-family: var(--jp-code-font-family, monospace); margin: 4px 0; }
.kc-picture { image-rendering: pixelated; border: 1px solid var(--jp-border-color1, #ccc); }
.kc-problem rect { stroke: var(--jp-error-color1, #d32f2f); }
.kc-pending rect { stroke-dasharray: 5 3; }
.kc-name { font-weight: bold; fill: var(--jp-ui-font-color1, #222); }
.kc-class, .kc-call { fill: var(--jp-ui-font-color2, #555); font-size: 10px; }
.kc-call-pending { font-style: italic; fill: var(--jp-warn-color1, #e65100); }
.kc-edge path { fill: none; stroke: var(--jp-ui-font-color2, #777); stroke-width: 1.6; }
.kc-edge:hover path { stroke: var(--jp-brand-color1, #1976d2); stroke-width: 2.5; }
.kc-edge.kc-pending path { stroke-dasharray: 5 4; }
.kc-edge path { cursor: pointer; }
.kc-edge path.kc-edge-hit { stroke: transparent; stroke-width: 12; pointer-events: stroke; } .kc-edge-selected path { stroke: var(--jp-brand-color1, #1976d2); stroke-width: 3; }
.kc-edge:focus { outline: none; } .kc-edge:focus path { stroke: var(--jp-brand-color1, #1976d2); }
.kc-edge-label { font-size: 10px; fill: var(--jp-ui-font-color2, #555); }
.kc-port { fill: var(--jp-layout-color3, #999); stroke: var(--jp-layout-color1, #fff); cursor: crosshair; }
.kc-port-out { fill: var(--jp-brand-color2, #64b5f6); }
.kc-port:focus, .kc-armed { stroke: var(--jp-brand-color1, #1976d2); stroke-width: 3; outline: none; }
.kc-temp-edge { fill: none; stroke: var(--jp-brand-color1, #1976d2); stroke-width: 2; stroke-dasharray: 4 3; }
.kc-world .kc-box { transition: none; }
.kc-training { margin-top: 6px; } .kc-training summary { cursor: pointer; font-weight: bold; }
.kc-train-body { display: flex; gap: 12px; flex-wrap: wrap; }
.kc-train-form .kc-row { grid-template-columns: 110px 130px; }
.kc-mesh { max-width: 244px; font-size: 11px; margin: 2px 0 4px; overflow-wrap: anywhere; }
.kc-progress { width: 240px; } .kc-chart { min-width: 420px; }
.kc-train-message { white-space: pre-wrap; max-height: 160px; overflow: auto; font-size: 11px; margin: 4px 0; }
.kc-failed .kc-train-message { color: var(--jp-error-color1, #c00); }
.kc-undone .kc-chart { filter: grayscale(1); opacity: 0.45; }
.kc-undone .kc-train-message { font-style: italic; }
.kc-epoch-act-bg { fill: var(--jp-layout-color0, #fff); stroke: #e65100; stroke-width: 0.8; opacity: 0.95; }
.kc-epoch-hist rect { fill: #e65100; } .kc-epoch-act-text { font-size: 9.5px; fill: var(--jp-ui-font-color1, #222); }
.kc-epoch-picker { margin: 4px 0; display: flex; flex-direction: column; gap: 2px; } .kc-epoch-picker input[type=range] { width: 100%; }
.kc-strip-frame { fill: var(--jp-layout-color0, #fff); stroke: var(--jp-border-color1, #bbb); stroke-width: 0.6; }
.kc-strip polyline { fill: none; stroke-width: 1.2; pointer-events: none; } .kc-strip circle { pointer-events: none; }
.kc-strip-weights { stroke: #1976d2; } .kc-strip-activations { stroke: #e65100; }
.kc-strip-weights-now { fill: #1976d2; } .kc-strip-activations-now { fill: #e65100; }
.kc-insight-problem circle { fill: var(--jp-warn-color0, #f57c00); } .kc-insight-problem text { fill: #fff; font-size: 11px; font-weight: bold; }
.kc-layout text { font-size: 9px; fill: var(--jp-ui-font-color2, #666); }
.kc-insight-plots { display: flex; flex-wrap: wrap; gap: 6px; } .kc-histogram { margin: 0; font-size: 10px; } .kc-insight-left-out { flex-basis: 100%; }
.kc-histogram rect { fill: var(--jp-brand-color1, #1976d2); } .kc-record-text { color: var(--jp-ui-font-color2, #666); }
.kc-insight-said { white-space: pre-line; color: var(--jp-warn-color0, #e65100); font-size: 12px; }
.kc-toggle { cursor: pointer; } .kc-toggle rect { fill: var(--jp-layout-color2, #eee); stroke: var(--jp-border-color1, #999); }
.kc-toggle text { font-size: 13px; font-weight: bold; fill: var(--jp-ui-font-color1, #222); } .kc-toggle:focus { outline: none; } .kc-toggle:focus rect { stroke: var(--jp-brand-color1, #1976d2); stroke-width: 2; }
.kc-box.kc-folded > rect.kc-card { stroke-opacity: 0.7; } .kc-fold-count { font-weight: bold; font-size: 14px; fill: hsl(var(--kc-hue, 210), 62%, 42%); }
[data-jp-theme-light="false"] .kc-fold-count { fill: hsl(var(--kc-hue, 210), 70%, 72%); }
.kc-box.kc-expanded > rect { fill: var(--jp-layout-color2, #f4f6fa); stroke-dasharray: 6 3; }
.kc-inner rect { fill: var(--jp-layout-color1, #fff); stroke: var(--jp-border-color1, #999); stroke-width: 1; }
.kc-inner-output rect { stroke: var(--jp-brand-color1, #1976d2); } .kc-inner-name { font-size: 11px; fill: var(--jp-ui-font-color1, #222); }
.kc-inner-edge { fill: none; stroke: var(--jp-border-color0, #888); stroke-width: 1; }
.kc-badge circle { fill: var(--jp-error-color1, #d32f2f); } .kc-badge text { fill: #fff; font-weight: bold; font-size: 11px; }
.kc-band { fill: var(--jp-brand-color3, #bbdefb); fill-opacity: 0.3; stroke: var(--jp-brand-color1, #1976d2); stroke-dasharray: 4 2; }
.kc-problems { margin: 2px 0 0; padding-left: 16px; color: var(--jp-error-color1, #c00); font-size: 11px; max-height: 120px; overflow: auto; }
.kc-problem-line[role=button] { cursor: pointer; } .kc-problem-line:hover, .kc-problem-line:focus { text-decoration: underline; }
.kc-status { margin-top: 4px; color: var(--jp-ui-font-color2, #555); }
.kc-notes { margin-top: 2px; font-size: 11px; color: var(--jp-ui-font-color2, #555); }
.kc-notes:empty { display: none; }
.kc-start { position: absolute; left: 50%; top: 40%; transform: translate(-50%, -50%); max-width: 360px;
  padding: 14px 16px; text-align: center; font-size: 12px; line-height: 1.45; pointer-events: none;
  color: var(--jp-ui-font-color1, #333); background: var(--jp-layout-color1, #fff);
  border: 1px dashed var(--jp-border-color1, #bbb); border-radius: 8px; }
.kc-start[hidden] { display: none; }
.kc-start-title { font-weight: 600; font-size: 13px; margin-bottom: 4px; }
.kc-start-example { margin-top: 10px; pointer-events: auto; }
.kc-minimap { position: absolute; right: 6px; bottom: 6px; width: 140px; height: 100px;
  background: var(--jp-layout-color1, #fff); border: 1px solid var(--jp-border-color1, #ccc); opacity: 0.9; }
.kc-mini-box { fill: var(--jp-layout-color3, #aaa); }
.kc-minimap { cursor: pointer; }
.kc-mini-view { fill: var(--jp-brand-color1, #1976d2); fill-opacity: 0.15; stroke: var(--jp-brand-color1, #1976d2);
  stroke-width: 2; vector-effect: non-scaling-stroke; }
.kc-toast { position: absolute; display: none; max-width: 420px; overflow: auto; box-sizing: border-box; padding: 6px 8px; z-index: 10;
  background: var(--jp-error-color3, #fdecea); color: var(--jp-error-color0, #b71c1c);
  border: 1px solid var(--jp-error-color1, #d32f2f); border-radius: 4px; white-space: pre-wrap; }
.kc-toast.kc-show { display: block; }
.kc-menu { position: absolute; display: none; z-index: 11; background: var(--jp-layout-color1, #fff);
  border: 1px solid var(--jp-border-color1, #ccc); box-shadow: 0 2px 6px rgba(0,0,0,.2); }
.kc-menu.kc-show { display: flex; flex-direction: column; }
.kc-menu-item { background: none; border: 0; text-align: left; padding: 4px 10px; cursor: pointer; color: inherit; }
.kc-menu-item:hover { background: var(--jp-layout-color2, #eee); }
.kc-box .kc-family { fill: hsl(var(--kc-hue, 210), 62%, 52%); stroke: none; }
.kc-box > rect { fill: hsl(var(--kc-hue, 210), 60%, 97%); }
[data-jp-theme-light="false"] .kc-box > rect { fill: hsl(var(--kc-hue, 210), 22%, 20%); }
/* a frozen box (trainable = False): greyed, dashed, its band muted, a "frozen" mark; partly frozen: a dashed edge */
.kc-box.kc-frozen > rect { fill: hsl(var(--kc-hue, 210), 6%, 91%); stroke-dasharray: 5 3; }
[data-jp-theme-light="false"] .kc-box.kc-frozen > rect { fill: hsl(var(--kc-hue, 210), 5%, 24%); }
.kc-box.kc-frozen .kc-family { fill: hsl(var(--kc-hue, 210), 8%, 66%); }
.kc-box.kc-partly-frozen > rect { stroke-dasharray: 5 3; }
.kc-frozen-mark { font-size: 9px; font-weight: bold; fill: hsl(205, 55%, 40%); letter-spacing: 0.04em; }
.kc-selected > rect { stroke: var(--jp-brand-color1, #1976d2); stroke-width: 2.5; }
.kc-highlight > rect { fill: var(--jp-brand-color3, #bbdefb); }
[data-jp-theme-light="false"] .kc-highlight > rect { fill: hsl(210, 45%, 30%); }
.kc-legend { display: flex; flex-wrap: wrap; gap: 10px; margin: 0 0 4px 4px; color: var(--jp-ui-font-color2, #555); font-size: 11px; }
.kc-legend-item { display: inline-flex; align-items: center; gap: 4px; }
.kc-swatch { width: 10px; height: 10px; border-radius: 2px; background: hsl(var(--kc-hue, 210), 62%, 52%); }
.kc-edge-selected path.kc-edge-line { stroke: var(--jp-brand-color1, #1976d2); stroke-width: 3; }
.kc-edge-drop path.kc-edge-line { stroke: var(--jp-success-color1, #388e3c); stroke-width: 4; }
.kc-edge-lifted path.kc-edge-line { stroke-dasharray: 3 4; opacity: 0.5; }
.kc-edge-label { paint-order: stroke; stroke: var(--jp-layout-color0, #fafafa); stroke-width: 3px; stroke-linejoin: round; }
.kc-wiring .kc-port-in { transition: opacity .1s; }
.kc-port-ok { fill: var(--jp-success-color1, #388e3c); stroke: var(--jp-success-color1, #388e3c); stroke-width: 3; r: 8; }
.kc-port-dim { opacity: 0.25; }
.kc-port-label { font-size: 9px; fill: var(--jp-ui-font-color2, #555); pointer-events: none;
  paint-order: stroke; stroke: var(--jp-layout-color0, #fafafa); stroke-width: 3px; }
.kc-quickadd { position: absolute; display: none; z-index: 12; width: 250px; padding: 4px;
  background: var(--jp-layout-color1, #fff); border: 1px solid var(--jp-border-color1, #ccc); box-shadow: 0 2px 8px rgba(0,0,0,.25); }
.kc-quickadd.kc-show { display: block; }
.kc-quickadd-note { margin: 3px 2px; font-size: 11px; }
.kc-quickadd-list { max-height: 240px; overflow: auto; }
.kc-quickadd-item { padding: 3px 6px; cursor: pointer; border-radius: 2px; display: flex; justify-content: space-between; gap: 6px; }
.kc-quickadd-kind { font-size: 10px; opacity: 0.7; white-space: nowrap; }
.kc-quickadd-item:hover, .kc-quickadd-item.kc-active { background: var(--jp-brand-color1, #1976d2); color: #fff; }
.kc-find { position: absolute; top: 6px; left: 6px; display: none; z-index: 12; gap: 6px; align-items: center; padding: 4px;
  background: var(--jp-layout-color1, #fff); border: 1px solid var(--jp-border-color1, #ccc); box-shadow: 0 1px 4px rgba(0,0,0,.2); }
.kc-find.kc-show { display: flex; } .kc-find .kc-field { width: 180px; }
.kc-code { margin-top: 6px; } .kc-code summary { cursor: pointer; font-weight: bold; }
.kc-code-bar { display: flex; gap: 4px; align-items: center; margin: 4px 0; }
.kc-code-text { max-height: 320px; overflow: auto; margin: 0; padding: 6px; font: 12px var(--jp-code-font-family, monospace);
  background: var(--jp-cell-editor-background, var(--jp-layout-color2, #f5f5f5)); color: var(--jp-content-font-color1, #222);
  border: 1px solid var(--jp-border-color2, #ddd); white-space: pre; }
.kc-link { background: none; border: none; padding: 0; margin-top: 4px; color: inherit; text-decoration: underline; cursor: pointer; font: inherit; }
.kc-ghost { position: fixed; pointer-events: none; z-index: 1000; padding: 2px 8px; border-radius: 3px;
  background: var(--jp-brand-color1, #1976d2); color: #fff; font: 12px sans-serif; }
/* a comparison (scene/comparemarks.ts, panels/compare.ts): one colour per kind of change, never red */
.kc-cmp-added { --kc-cmp: hsl(140, 55%, 36%); } .kc-cmp-changed { --kc-cmp: hsl(33, 90%, 42%); }
.kc-cmp-renamed { --kc-cmp: hsl(210, 70%, 45%); } .kc-cmp-weights { --kc-cmp: hsl(275, 45%, 52%); }
.kc-cmp-outline { fill: none; stroke: var(--kc-cmp); stroke-width: 2.5; pointer-events: none; }
.kc-cmp-pill rect { fill: var(--kc-cmp); } .kc-cmp-text { fill: #fff; font-size: 9.5px; font-weight: bold; }
.kc-cmp-ghost { opacity: 0.6; pointer-events: none; }
.kc-cmp-link { fill: none; stroke: var(--jp-ui-font-color2, #777); stroke-width: 1; stroke-dasharray: 3 4; opacity: 0.45; pointer-events: none; }
.kc-cmp-ghost > rect { fill: var(--jp-layout-color2, #eee); stroke: var(--jp-ui-font-color2, #777); stroke-width: 1.5; stroke-dasharray: 6 4; }
.kc-cmp-rewired path.kc-edge-line { stroke: hsl(175, 70%, 32%); stroke-width: 3; }
.kc-compare { border: 1px solid var(--jp-border-color2, #ddd); border-radius: 3px; padding: 4px 6px; margin: 0 0 4px; font-size: 11px; }
.kc-compare[hidden] { display: none; }
.kc-compare-head { display: flex; align-items: center; gap: 8px; justify-content: space-between; }
.kc-compare-summary { font-weight: bold; overflow-wrap: anywhere; }
.kc-compare-key { display: flex; flex-wrap: wrap; gap: 10px; margin-top: 2px; color: var(--jp-ui-font-color2, #555); }
.kc-cmp-swatch { display: inline-block; width: 10px; height: 10px; border-radius: 2px; border: 2px solid var(--kc-cmp, #777); box-sizing: border-box; }
.kc-cmp-swatch-added { --kc-cmp: hsl(140, 55%, 36%); } .kc-cmp-swatch-changed { --kc-cmp: hsl(33, 90%, 42%); }
.kc-cmp-swatch-renamed { --kc-cmp: hsl(210, 70%, 45%); } .kc-cmp-swatch-weights { --kc-cmp: hsl(275, 45%, 52%); }
.kc-cmp-swatch-ghost { border-style: dashed; } .kc-cmp-swatch-rewired { height: 3px; border: none; background: hsl(175, 70%, 32%); }
.kc-compare-detail { margin: 2px 0 0; padding-left: 16px; } .kc-compare-detail:empty { display: none; }
.kc-compare-detail li { overflow-wrap: anywhere; font-family: var(--jp-code-font-family, monospace); }
`;
