import { describe, expect, it } from "vitest";
import { edgeAt, insertPlacement, nearestOnPolyline, segmentDistance } from "../src/scene/edges";
import { matchRank, rank } from "../src/interaction/quickadd";
import { along, curvePoints, placeLabels, polylineHits, route, segmentHits } from "../src/scene/router";
import { placeMenu } from "../src/interaction/menu";
import { usefulMessage } from "../src/base/words";
import { fileName } from "../src/panels/codepanel";
import { activationText, family } from "../src/scene/families";
import { READABLE_SCALE, centreOn, readableFit } from "../src/mirror/geometry";
import type { EdgeState, LayerState } from "../src/mirror/types";
import { type Drawn, kernelLayer } from "./kernel";

function layer(over: Partial<Drawn>, edges: EdgeState[] = []): LayerState {
  return kernelLayer({ name: "dense", class_name: "Dense", group: "core", config: {}, is_input: false, x: 0, y: 0, pinned: false,
    slots: { kind: "single", names: ["inputs"], min: 1, max: 1 }, n_outputs: 1,
    calls: [{ index: 0, built: true, output_shapes: [[null, 4]], missing: null }], params: 20, depth: 0, problems: [],
    inner_layers: null, expanded: false, inner: null, ...over }, edges);
}

describe("edge hit testing", () => {
  it("measures distance to a segment and a polyline", () => {
    expect(segmentDistance({ x: 5, y: 3 }, { x: 0, y: 0 }, { x: 10, y: 0 })).toBe(3);
    expect(segmentDistance({ x: -4, y: 3 }, { x: 0, y: 0 }, { x: 10, y: 0 })).toBe(5);
    const n = nearestOnPolyline({ x: 12, y: 5 }, [{ x: 0, y: 0 }, { x: 10, y: 0 }, { x: 10, y: 10 }]);
    expect(n.distance).toBe(2);
    expect(n.at).toEqual({ x: 10, y: 5 });
  });

  it("finds the nearest edge within the tolerance, none outside it", () => {
    const a = curvePoints({ x: 0, y: 0 }, { x: 0, y: 200 });
    const b = curvePoints({ x: 100, y: 0 }, { x: 100, y: 200 });
    expect(edgeAt([a, null, b], { x: 95, y: 100 }, 10)).toBe(2);
    expect(edgeAt([a, null, b], { x: 4, y: 100 }, 10)).toBe(0);
    expect(edgeAt([a, null, b], { x: 50, y: 100 }, 10)).toBe(-1);
  });
});

describe("insert on a wire", () => {
  it("centres the dropped box on the wire's nearest point", () => {
    const wire = [{ x: 100, y: 0 }, { x: 100, y: 300 }];
    expect(insertPlacement({ x: 130, y: 150 }, wire, 180, 62)).toEqual({ x: 10, y: 119 });
  });
});

describe("quick-add ranking", () => {
  const names = ["AdaptiveMaxPooling1D", "AdaptiveMaxPooling2D", "MaxPooling1D", "MaxPooling2D", "MaxPooling3D",
    "GlobalMaxPooling2D", "Dense", "EinsumDense", "Dropout", "SpatialDropout2D"].map((class_name) => ({ class_name }));
  it("puts exact, then prefix, then word-start, then substring matches first", () => {
    expect(rank(names, "maxpool").map((e) => e.class_name).slice(0, 3)).toEqual(["MaxPooling1D", "MaxPooling2D", "MaxPooling3D"]);
    expect(rank(names, "maxpool").map((e) => e.class_name).indexOf("AdaptiveMaxPooling1D")).toBeGreaterThan(2);
    expect(rank(names, "dense")[0].class_name).toBe("Dense");
    expect(rank(names, "dropout").map((e) => e.class_name)).toEqual(["Dropout", "SpatialDropout2D"]);
    expect(matchRank("Dense", "dense")).toBe(0);
    expect(matchRank("MaxPooling2D", "max")).toBe(1);
    expect(matchRank("GlobalMaxPooling2D", "maxpool")).toBe(2);
    expect(matchRank("Dense", "xyz")).toBeNull();
    expect(matchRank("MaxPooling2D", "mp2")).toBe(4);
  });
});

describe("router", () => {
  it("clips segments against rectangles", () => {
    const r = { x: 0, y: 0, w: 10, h: 10 };
    expect(segmentHits({ x: -5, y: 5 }, { x: 15, y: 5 }, r)).toBe(true);
    expect(segmentHits({ x: -5, y: 15 }, { x: 15, y: 15 }, r)).toBe(false);
  });

  it("keeps the plain curve when nothing is in the way", () => {
    const r = route({ x: 0, y: 0 }, { x: 0, y: 300 }, [{ x: 200, y: 100, w: 180, h: 60 }]);
    expect(r.d.startsWith("M0,0 C")).toBe(true);
  });

  it("takes a skip connection around the boxes it skips, clear of every box", () => {
    const boxes = [{ x: -90, y: 100, w: 180, h: 62 }, { x: -90, y: 220, w: 180, h: 62 }];
    const r = route({ x: 0, y: 40 }, { x: 0, y: 360 }, boxes);
    expect(r.d).toContain("Q");
    for (const b of boxes) expect(polylineHits(r.points, b)).toBe(false);
    expect(r.points[0]).toEqual({ x: 0, y: 40 });
    expect(r.points[r.points.length - 1]).toEqual({ x: 0, y: 360 });
  });

  it("spreads lanes of different sources apart", () => {
    const boxes = [{ x: -90, y: 100, w: 180, h: 62 }];
    const a = route({ x: 0, y: 40 }, { x: 0, y: 260 }, boxes, 0);
    const b = route({ x: 0, y: 40 }, { x: 0, y: 260 }, boxes, 1);
    expect(a.points[2].x).not.toBe(b.points[2].x);
  });
});

describe("label placement", () => {
  it("places labels so they overlap no box and no other label", () => {
    const line = [{ x: 0, y: 0 }, { x: 0, y: 200 }];
    const spots = placeLabels([line, line, line], [60, 60, 60], [{ x: -10, y: 90, w: 100, h: 20 }]);
    const rects = spots.filter(Boolean).map((s) => s!.rect);
    expect(rects.length).toBeGreaterThanOrEqual(2);
    for (let i = 0; i < rects.length; i++) {
      const r = rects[i]; // clear of the box (-10, 90, 100 x 20)
      expect(r.y + r.h <= 90 || r.y >= 110 || r.x + r.w <= -10 || r.x >= 90).toBe(true);
      for (let j = i + 1; j < rects.length; j++) {
        const a = rects[i], b = rects[j];
        expect(a.y + a.h <= b.y || b.y + b.h <= a.y || a.x + a.w <= b.x || b.x + b.w <= a.x).toBe(true);
      }
    }
  });

  it("walks along a polyline by length", () => {
    expect(along([{ x: 0, y: 0 }, { x: 0, y: 10 }, { x: 10, y: 10 }], [0.5])[0]).toEqual({ x: 0, y: 10 });
  });
});

describe("menu placement", () => {
  it("keeps the menu inside the visible area", () => {
    expect(placeMenu({ x: 10, y: 10 }, { w: 100, h: 80 }, { w: 500, h: 400 })).toEqual({ x: 10, y: 10 });
    expect(placeMenu({ x: 450, y: 380 }, { w: 100, h: 80 }, { w: 500, h: 400 })).toEqual({ x: 350, y: 300 });
    expect(placeMenu({ x: 50, y: 30 }, { w: 100, h: 500 }, { w: 500, h: 400 })).toEqual({ x: 50, y: 0 });
  });
});

describe("messages", () => {
  it("shows Keras's useful sentence first and keeps the config for Details", () => {
    const raw = "Keras refused the config of dense (Dense): Error when deserializing class 'Dense' using config={'name': 'dense', 'units': -1, 'kernel_initializer': {'module': 'keras.initializers'}}.\n\nException encountered: Received an invalid value for `units`, expected a positive integer. Received: units=-1";
    const m = usefulMessage(raw);
    expect(m.short).toBe("Keras refused the config of dense (Dense): Received an invalid value for `units`, expected a positive integer.");
    expect(m.more).toBe(raw);
    expect(usefulMessage("There is no edge.")).toEqual({ short: "There is no edge.", more: null });
  });

  it("cuts a long refusal at its first sentence", () => {
    const raw = "Keras refused to call dense (Dense) call 0 on input shape(s) (None, None): Dense needs every size of its input but the batch known to make its weights, and input_layer gives None there. (Shapes used to initialize variables must be fully-defined (no `None` dimensions). Received: shape=(None, 3) for variable path='dense/kernel')";
    const m = usefulMessage(raw);
    expect(m.short.endsWith("input_layer gives None there.")).toBe(true);
    expect(m.short).not.toContain("dense/kernel");
    expect(m.more).toBe(raw);
  });

  it("names the download after the model", () => {
    expect(fileName("my model")).toBe("my_model.py");
    expect(fileName("")).toBe("model.py");
  });
});

describe("families and readable fit", () => {
  it("colours by family and shows the activation", () => {
    expect(family(layer({ group: "convolutional" }))?.name).toBe("Convolution");
    expect(family(layer({ is_input: true, group: "input" }))?.name).toBe("Input");
    expect(activationText({ activation: "relu" })).toBe("relu");
    expect(activationText({ activation: "linear" })).toBeNull();
    // a serialized activation, and a registered function (KerasHub's GPT-2: issue 40)
    expect(activationText({ activation: { class_name: "function", config: { name: "gelu" } } })).toBe("gelu");
    expect(activationText({ activation: { class_name: "function", config: "keras_hub>gelu_approximate" } })).toBe("gelu_approximate");
    expect(activationText({ activation: { config: 3 } })).toBeNull();
    expect(activationText({ activation: ["relu"] })).toBeNull();
  });

  it("never fits below a readable scale and starts at the inputs", () => {
    const tall = Array.from({ length: 200 }, (_, i) => layer({ name: `l${i}`, x: 0, y: i * 100, is_input: i === 0 }));
    const v = readableFit(tall, 800, 500);
    expect(v.k).toBe(READABLE_SCALE);
    expect(v.y).toBeCloseTo(30); // the first row (the input) at the top
    const small = [layer({ x: 0, y: 0 })];
    expect(readableFit(small, 800, 500).k).toBe(1);
    const c = centreOn(tall[50], { x: 0, y: 0, k: 0.1 }, 800, 500);
    expect(c.k).toBe(0.8);
  });

  it("a long drawing that flows right starts at its inputs on the left, centred on them", () => {
    const long = Array.from({ length: 200 }, (_, i) => layer({ name: `l${i}`, x: i * 290, y: -31, is_input: i === 0 }));
    const v = readableFit(long, 800, 500, 30, "right");
    expect(v.k).toBe(READABLE_SCALE);
    expect(v.x).toBeCloseTo(30); // the first column (the input) at the left
    const h = long[0].h;
    expect(v.y + (-31 + h / 2) * v.k).toBeCloseTo(250); // its middle at the stage's middle
  });
});
