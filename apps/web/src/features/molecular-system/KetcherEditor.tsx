import "./ketcherGlobals";
import "ketcher-react/dist/index.css";
import type { Ketcher } from "ketcher-core";
import { Editor } from "ketcher-react";
// The binaryWasm build: Indigo's WebAssembly is a separate asset fetched by its worker, not 20 MB
// of base64 inside the script; nothing outside our server is asked for.
import { StandaloneStructServiceProvider } from "ketcher-standalone/dist/binaryWasm";

const structServiceProvider = new StandaloneStructServiceProvider();

export interface KetcherEditorProps {
  onInit: (ketcher: Ketcher) => void;
  onError: (message: string) => void;
}

/** Ketcher, the structure editor, with its standalone (in-browser) structure service. Loaded lazily:
 * this module and its dependencies are a chunk of their own. */
export default function KetcherEditor({ onInit, onError }: KetcherEditorProps) {
  return (
    <div style={{ position: "relative", height: 560, width: "100%" }} data-testid="ketcher-editor">
      <Editor
        staticResourcesUrl=""
        structServiceProvider={structServiceProvider}
        errorHandler={onError}
        onInit={onInit}
        disableMacromoleculesEditor
      />
    </div>
  );
}
