// npm run gen:types: writes src/statetypes.ts from kerascanvas/state.json (see src/shapegen.ts).
import { writeFileSync } from "node:fs";
import description from "../../kerascanvas/state.json";
import { type Description, generate } from "../src/shapegen";

writeFileSync("src/statetypes.ts", generate(description as Description));
