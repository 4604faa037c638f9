/// <reference path="./.sst/platform/config.d.ts" />
// The AWS deployment (SPEC section 8) is not built yet; this declares the app only.
export default $config({
  app(input) {
    return { name: "kneeboard", removal: input?.stage === "prod" ? "retain" : "remove", home: "aws" };
  },
  async run() {},
});
