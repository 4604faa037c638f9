/**
 * The walk at 390 px in dark mode (see `layout-walk.ts`): every variant of every page of the shared
 * fixture site, by its most extreme pages, never scrolls sideways on a phone, and axe reads the colours
 * of a page of every template.
 */
import { describePass } from "./layout-pass.ts";
import { PHONE } from "./layout-walk.ts";

describePass(PHONE);
