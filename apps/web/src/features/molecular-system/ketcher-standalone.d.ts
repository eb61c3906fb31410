// ketcher-standalone's package.json exports its binaryWasm build without types; they are the same
// as the default build's.
declare module "ketcher-standalone/dist/binaryWasm" {
  export * from "ketcher-standalone";
}
