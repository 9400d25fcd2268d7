// The picture the kernel leaves after a canvas's output (kerascanvas/canvas/picture_output.py) is for
// where the live view cannot render (GitHub, nbviewer, nbconvert, no kernel). Where the live view
// does render, it hides the picture right after it: this rule is in the page only once a canvas
// has rendered, and matches only a picture that follows an output holding a live canvas.
export const FALLBACK_CSS = `
.jp-OutputArea-child:has(.kc-root) + .jp-OutputArea-child:has(img[src*="kerascanvas-picture"]) { display: none; }
`;
