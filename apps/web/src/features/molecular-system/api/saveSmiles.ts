import { api } from "../../../lib/api/client";
import { systemPath } from "../../../lib/api/systems";

/** Saves the drawn structure; the server converts it to 3D. No hook: StructureDefinition's save is a
 * sequence (save, say so, refresh, wait, refresh again) around the editor, not one mutation. */
export const saveSmiles = (id: string, smiles: string) => api.post<unknown>(`${systemPath(id)}/smiles`, { smiles });
