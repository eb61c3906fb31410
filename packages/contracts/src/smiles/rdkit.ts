import initRDKitModule, { type MainModule } from "@rdkit/rdkit";

/** RDKit's MinimalLib (WebAssembly): parsing and 2D drawing of SMILES. */
export type RDKitModule = MainModule;

export interface RDKitLoadOptions {
  /**
   * Where the browser fetches RDKit_minimal.wasm (a bundler asset URL). Node needs none: the module
   * reads the file next to its own script.
   */
  wasmUrl?: string;
}

let rdkitLoading: Promise<RDKitModule> | undefined;

/** Loads RDKit once per process or page; every caller shares the same instance. */
export function loadRDKit(options: RDKitLoadOptions = {}): Promise<RDKitModule> {
  if (!rdkitLoading) {
    const { wasmUrl } = options;
    rdkitLoading = initRDKitModule(wasmUrl ? { locateFile: () => wasmUrl } : {}).catch((error: unknown) => {
      // Let a later call retry (e.g. after a network hiccup fetching the .wasm).
      rdkitLoading = undefined;
      throw error;
    });
  }
  return rdkitLoading;
}
