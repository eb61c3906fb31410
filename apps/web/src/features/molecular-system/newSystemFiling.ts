import { createContext, type ReactNode, useContext } from "react";

/** Filing the system being created under a project, composed by the app (features do not import
 * each other); absent when projects are off. */
export interface NewSystemFiling {
  /** A field choosing where to file it (null: nowhere). */
  field: (props: { value: string | null; onChange: (value: string | null) => void }) => ReactNode;
  /** The Details step was submitted with this choice; the app files the system once it is created. */
  choose: (projectId: string | null, systemName: string) => void;
}

export const NewSystemFilingContext = createContext<NewSystemFiling | undefined>(undefined);

export function useNewSystemFiling(): NewSystemFiling | undefined {
  return useContext(NewSystemFilingContext);
}
