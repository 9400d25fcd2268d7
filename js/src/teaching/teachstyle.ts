// The teaching views' CSS (teacher.ts and the modules it draws with), in JupyterLab's theme
// variables: the walk's colours, values on edges, output markers, the node view, the player
// beside the drawing and the inspector's Keras-internals tab.
export const TEACH_CSS = `
.kc-stage-row { display: flex; gap: 6px; align-items: stretch; min-width: 0; }
.kc-stage-row > .kc-stage { flex: 1; min-width: 0; }
.kc-teach-side { width: 310px; flex: none; display: flex; flex-direction: column; gap: 6px; overflow: auto; max-height: 100%; }
.kc-teach-side .kc-player, .kc-outputs { margin: 0; padding: 6px; border: 1px solid var(--jp-border-color1, #ccc); border-radius: 3px; }
.kc-player:focus-visible { outline: 2px solid var(--jp-brand-color1, #1976d2); }
.kc-teach-head { display: flex; justify-content: space-between; align-items: center; gap: 4px; margin-bottom: 4px; }
.kc-teach-controls { display: flex; gap: 2px; flex-wrap: wrap; align-items: center; margin: 4px 0; }
.kc-teach-side .kc-step { white-space: pre-wrap; font-size: 12px; }
.kc-walk-stack, .kc-walk-depths { margin-top: 6px; font: 11px var(--jp-code-font-family, monospace); }
.kc-walk-stack-item { padding: 1px 4px; margin: 1px 0; border-left: 3px solid #f9a825; }
.kc-walk-depth { padding: 1px 0; }
.kc-walk { fill: none; stroke-width: 4; pointer-events: none; }
.kc-walk-progress { stroke: #f9a825; stroke-dasharray: 7 4; fill: rgba(249, 168, 37, .12); }
.kc-walk-finished { stroke: #43a047; fill: rgba(67, 160, 71, .10); }
.kc-walk-cycle { stroke: var(--jp-error-color1, #d32f2f); fill: rgba(211, 47, 47, .12); }
.kc-walk-current { fill: none; stroke: var(--jp-brand-color1, #1976d2); stroke-width: 2; stroke-dasharray: 2 3; pointer-events: none; }
.kc-walk-badge { pointer-events: all; } .kc-walk-badge text { font-size: 10px; font-weight: bold; fill: #fff; }
.kc-walk-badge rect { fill: #1565c0; } .kc-walk-badge-progress rect { fill: #e65100; }
.kc-walk-badge-finished rect { fill: #2e7d32; } .kc-walk-badge-cycle rect { fill: #c62828; }
.kc-value { pointer-events: none; } .kc-value-bg { fill: var(--jp-layout-color1, #fff); stroke: #8e24aa; stroke-width: 1; opacity: .92; }
.kc-value-text { font: 10px var(--jp-code-font-family, monospace); fill: var(--jp-ui-font-color1, #222); }
.kc-value-picture { image-rendering: pixelated; }
.kc-out-marker rect { fill: var(--jp-layout-color1, #fff); stroke: #8e24aa; stroke-width: 1.2; }
.kc-out-marker text { font-size: 10px; font-weight: bold; fill: #8e24aa; }
.kc-out-marked rect { fill: #8e24aa; } .kc-out-marked text { fill: #fff; }
.kc-out-marker { pointer-events: none; } .kc-out-marker[role=button] { pointer-events: all; cursor: pointer; }
.kc-port-shown { fill: none; stroke: #e53935; stroke-width: 3; pointer-events: none; }
.kc-output-list { margin: 4px 0; padding-left: 22px; } .kc-output-item { margin: 2px 0; }
.kc-output-key { width: 80px; margin-right: 4px; }
.kc-nodeview { position: absolute; inset: 0; width: 100%; height: 100%; background: var(--jp-layout-color0, #fafafa); }
.kc-nv-note { position: absolute; left: 6px; bottom: 4px; font-size: 11px; pointer-events: none; }
.kc-nv-node > rect { fill: var(--jp-layout-color1, #fff); stroke: var(--jp-border-color0, #666); stroke-width: 1.2; }
.kc-nv-node { cursor: pointer; } .kc-nv-node:focus { outline: none; } .kc-nv-node:focus > rect { stroke: var(--jp-brand-color1, #1976d2); stroke-width: 2; }
.kc-nv-selected > rect { stroke: var(--jp-brand-color1, #1976d2); stroke-width: 3; fill: var(--jp-brand-color3, #e3f2fd); }
.kc-nv-progress > rect { stroke: #f9a825; stroke-width: 3; stroke-dasharray: 7 4; fill: rgba(249, 168, 37, .12); }
.kc-nv-finished > rect { stroke: #43a047; stroke-width: 3; fill: rgba(67, 160, 71, .10); }
.kc-nv-cycle > rect { stroke: #d32f2f; stroke-width: 3; }
.kc-nv-current > rect { stroke: var(--jp-brand-color1, #1976d2); stroke-width: 4; }
.kc-nv-edge path { fill: none; stroke: var(--jp-ui-font-color2, #777); stroke-width: 1.6; }
.kc-nv-edge { cursor: pointer; } .kc-nv-edge:hover path, .kc-nv-shown path { stroke: #e53935; stroke-width: 3; }
.kc-nv-label { font: 10px var(--jp-code-font-family, monospace); fill: var(--jp-ui-font-color1, #222); paint-order: stroke;
  stroke: var(--jp-layout-color0, #fafafa); stroke-width: 3px; }
.kc-nv-output { font-size: 10px; font-weight: bold; fill: #8e24aa; }
.kc-side.kc-side-wide { width: 430px; }
.kc-side-wide .kc-inspector { max-height: 520px; }
.kc-tabs { display: flex; gap: 2px; margin-bottom: 6px; border-bottom: 1px solid var(--jp-border-color2, #ddd); }
.kc-tab { background: none; border: none; padding: 3px 8px; cursor: pointer; color: inherit; font: inherit; border-bottom: 2px solid transparent; }
.kc-tab[aria-selected=true] { border-bottom-color: var(--jp-brand-color1, #1976d2); font-weight: bold; }
.kc-inspector:not(.kc-internals-on) > .kc-internals { display: none; }
.kc-internals-on > :not(.kc-tabs):not(.kc-internals) { display: none; }
.kc-internals .kc-tensor { display: flex; gap: 6px; justify-content: space-between; align-items: baseline; }
.kc-internals .kc-link { margin: 0; white-space: nowrap; }
.kc-row-shown { outline: 2px solid #e53935; }
.kc-renamed { border-collapse: collapse; font-size: 11px; } .kc-renamed td, .kc-renamed th { border: 1px solid var(--jp-border-color2, #ddd); padding: 2px 4px; text-align: left; }
`;
