// npm run gen:types: writes src/mirror/statetypes.ts from kerascanvas/mirror/state.json (see src/mirror/shapegen.ts).
import { writeFileSync } from "node:fs";
import description from "../../kerascanvas/mirror/state.json";
import { type Description, generate } from "../src/mirror/shapegen";

writeFileSync("src/mirror/statetypes.ts", generate(description as Description));
