import { Alert, Box, Button, Group, Loader, Stack, Text } from "@mantine/core";
import { canSaveStructure } from "@polyforge/contracts/molecular-systems";
import { useQueryClient } from "@tanstack/react-query";
import type { Ketcher } from "ketcher-core";
import { lazy, type RefObject, Suspense, useCallback, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { toast } from "sonner";
import { errorMessage } from "../../lib/api/productError";
import { SYSTEMS_QUERY_KEY } from "../../lib/api/systems";
import type { MolecularSystem } from "./api/getMolecularSystem";
import { saveSmiles } from "./api/saveSmiles";
import { hasConnectionPoints, SmilesDialog } from "./SmilesDialog";
import { StatusBadge, useStatusBadgeText } from "./StatusBadge";

const KetcherEditor = lazy(() => import("./KetcherEditor"));

/** SPEC §9: the editor is waited for up to 8000 ms, checked every 100 ms. */
export const RENDERER_WAIT_MS = 8000;
export const RENDERER_POLL_MS = 100;
/** SPEC §9: after a save, the status is read again 1.5 s later (the conversion job has started). */
export const SAVE_DELAY_MS = 1500;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The editor once it has started, or null after RENDERER_WAIT_MS. */
export async function waitForRenderer(current: () => Ketcher | null): Promise<Ketcher | null> {
  for (let waited = 0; ; waited += RENDERER_POLL_MS) {
    const ketcher = current();
    if (ketcher) return ketcher;
    if (waited >= RENDERER_WAIT_MS) return null;
    await sleep(RENDERER_POLL_MS);
  }
}

/**
 * Definition from a structure (SPEC §4 Structure-based system): draw it in Ketcher or type a SMILES
 * ('Enter SMILES' → 'Draw structure'), then 'Save structure'; the server converts it to 3D.
 */
export function StructureDefinition({ system }: { system: MolecularSystem }) {
  const { t } = useTranslation("molecularSystems");
  const badgeText = useStatusBadgeText();
  const ketcherRef = useRef<Ketcher | null>(null);
  const [rendererError, setRendererError] = useState<string | null>(null);
  const [dialogOpen, setDialogOpen] = useState(false);
  const [smilesDraft, setSmilesDraft] = useState("");
  const [warning, setWarning] = useState<string | null>(null);
  const { status, smiles: savedSmiles, problem } = system.system_data;
  const failed = status === "failed" || status === "error";

  const onInit = useCallback(
    (ketcher: Ketcher) => {
      ketcherRef.current = ketcher;
      // Resuming: the saved structure is shown in the editor.
      if (savedSmiles) ketcher.setMolecule(savedSmiles).catch(() => setRendererError(t("structure.renderError")));
    },
    [savedSmiles, t],
  );

  async function draw(smiles: string) {
    const ketcher = await waitForRenderer(() => ketcherRef.current);
    if (!ketcher) {
      setRendererError(t("structure.rendererLoadError"));
      return;
    }
    try {
      await ketcher.setMolecule(smiles);
      setRendererError(null);
      setSmilesDraft("");
      setDialogOpen(false);
      setWarning(null);
    } catch {
      setRendererError(t("structure.renderError"));
    }
  }

  const { save, saving, savedAt } = useStructureSave(system.id, ketcherRef, smilesDraft, setWarning, setRendererError);

  // The dialog opens on the structure the editor holds, so it can be read and corrected as text.
  async function openDialog() {
    const drawn = ketcherRef.current ? await ketcherRef.current.getSmiles().catch(() => "") : "";
    if (!smilesDraft.trim() && drawn.trim()) setSmilesDraft(drawn.trim());
    setDialogOpen(true);
  }

  // Disabled while saving, after a save (until that save's conversion fails), and while converting
  // or once converted (SPEC §4).
  const saveDisabled = saving || (savedAt !== null && !failed) || !canSaveStructure(status);
  const badge = badgeText("smiles", status);

  return (
    <Stack gap="md">
      <Group justify="space-between">
        <Group gap="sm">
          <Button variant="light" onClick={() => void openDialog()} disabled={!canSaveStructure(status)}>
            {t("structure.enterSmiles")}
          </Button>
          {badge ? <StatusBadge status={status} label={badge} /> : null}
        </Group>
        <Button onClick={() => void save()} loading={saving} disabled={saveDisabled}>
          {t("structure.saveStructure")}
        </Button>
      </Group>

      <StructureMessages
        warning={warning}
        rendererError={rendererError}
        problem={failed ? (problem ?? null) : null}
        savedSmiles={savedSmiles}
      />
      <StructureEditor onInit={onInit} onError={() => setRendererError(t("structure.renderError"))} />

      <SmilesDialog
        opened={dialogOpen}
        value={smilesDraft}
        onChange={setSmilesDraft}
        onClose={() => setDialogOpen(false)}
        onDraw={draw}
      />
    </Stack>
  );
}

/**
 * 'Save structure': the SMILES the editor holds goes to the server, whose conversion status is
 * read again now and SAVE_DELAY_MS later. Refused while a SMILES typed in the dialog is not drawn,
 * or the editor holds nothing.
 */
function useStructureSave(
  systemId: string,
  ketcherRef: RefObject<Ketcher | null>,
  smilesDraft: string,
  setWarning: (warning: string | null) => void,
  setRendererError: (error: string | null) => void,
) {
  const { t } = useTranslation("molecularSystems");
  const queryClient = useQueryClient();
  // A double click must not send the structure twice: the state below re-renders too late for that.
  const savingRef = useRef(false);
  const [saving, setSaving] = useState(false);
  const [savedAt, setSavedAt] = useState<string | null>(null);

  async function save() {
    if (savingRef.current) return;
    setWarning(null);
    savingRef.current = true;
    setSaving(true);
    try {
      const ketcher = await waitForRenderer(() => ketcherRef.current);
      if (!ketcher) {
        setRendererError(t("structure.rendererLoadError"));
        return;
      }
      const smiles = (await ketcher.getSmiles()).trim();
      const refusal = structureRefusal(smiles, smilesDraft.trim());
      if (refusal) {
        setWarning(t(refusal));
        return;
      }
      await saveSmiles(systemId, smiles);
      setSavedAt(smiles);
      toast.success(t("structure.saved"));
      await queryClient.invalidateQueries({ queryKey: SYSTEMS_QUERY_KEY });
      await sleep(SAVE_DELAY_MS);
      await queryClient.invalidateQueries({ queryKey: SYSTEMS_QUERY_KEY });
    } catch (error) {
      // Why the server refused it (a structure too large for a SMILES, say), under the spec's title.
      toast.error(t("structure.saveFailed"), { description: errorMessage(error) });
    } finally {
      savingRef.current = false;
      setSaving(false);
    }
  }
  return { save, saving, savedAt };
}

/** Why the editor's structure cannot be saved (the key of its message), or null: a SMILES typed in the
 * dialog but not drawn (not what the editor holds), an empty editor, or connection points. */
function structureRefusal(smiles: string, draft: string): string | null {
  if (draft && draft !== smiles) return "messages.finishSmiles";
  if (!smiles) return "messages.provideStructure";
  if (hasConnectionPoints(smiles)) return "messages.connectionPoints";
  return null;
}

/** What the user should know: a warning about the save, the editor's error, the conversion's
 * problem, and the SMILES last saved. */
function StructureMessages({
  warning,
  rendererError,
  problem,
  savedSmiles,
}: {
  warning: string | null;
  rendererError: string | null;
  problem: { message: string } | null;
  savedSmiles: string | null | undefined;
}) {
  const { t } = useTranslation("molecularSystems");
  return (
    <>
      {warning ? (
        <Alert color="yellow" role="alert">
          {warning}
        </Alert>
      ) : null}
      {rendererError ? (
        <Alert color="red" role="alert">
          {rendererError}
        </Alert>
      ) : null}
      {problem ? (
        <Alert color="red" role="alert">
          {problem.message}
        </Alert>
      ) : null}
      {savedSmiles ? (
        <Text size="sm" c="dimmed" style={{ wordBreak: "break-all" }}>
          {t("structure.savedSmiles", { smiles: savedSmiles })}
        </Text>
      ) : null}
    </>
  );
}

/** Ketcher, loaded on demand (a large bundle), with a loader in its place meanwhile. */
function StructureEditor({ onInit, onError }: { onInit: (ketcher: Ketcher) => void; onError: () => void }) {
  const { t } = useTranslation("molecularSystems");
  return (
    <Box aria-label={t("structure.editorLabel")} role="region">
      <Suspense
        fallback={
          <Group h={560} justify="center">
            <Loader aria-label={t("structure.editorLoading")} />
          </Group>
        }
      >
        <KetcherEditor onInit={onInit} onError={onError} />
      </Suspense>
    </Box>
  );
}
