// The package as a browser bundle imports it (package.json, "exports", condition "browser"):
// all of ./index.ts, with the connect() of ./web.ts, whose default transport is connect-web's.
export * from "./index.js";
export { connect, webTransport } from "./web.js";
