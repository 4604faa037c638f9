/**
 * The walk at 1366 px in light mode (see `layout-walk.ts`): every variant of every page of the shared
 * fixture site, by its most extreme pages, fits a laptop, every ranking column included, and axe reads
 * every rule on every axe page.
 */
import { describePass } from "./layout-pass.ts";
import { LAPTOP } from "./layout-walk.ts";

describePass(LAPTOP);
