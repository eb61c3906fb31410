import { useFeatureIsOn } from "@growthbook/growthbook-react";
import { Alert, Button, Card, Group, Loader, Menu, Stack, Text, Title } from "@mantine/core";
import { FLAGS } from "@polyforge/contracts/flags";
import type { GeneratePotentialFormInput } from "@polyforge/contracts/potentials";
import { IconChevronDown, IconFileUpload, IconFlask } from "@tabler/icons-react";
import { useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { failureToast } from "../../lib/api/failureToast";
import { useCreatePotential } from "./api/createPotential";
import type { MolecularSystem } from "./api/getMolecularSystem";
import { usePotentials } from "./api/getPotentials";
import { GeneratePotentialForm } from "./GeneratePotentialForm";
import { PotentialCard } from "./PotentialCard";
import { UploadPotentialForm, type UploadPotentialValues } from "./UploadPotentialForm";

type Draft = "generate" | "upload";

/**
 * Step 3 (SPEC §2 Add molecular system → Potentials): the system's potentials with their live
 * statuses, and 'Add potential' → Generate (flag generate-potential) or Upload file. One draft at a
 * time: an open form, or an uploaded potential still waiting for its file.
 */
export function PotentialsStep({ system }: { system: MolecularSystem }) {
  const { t } = useTranslation("molecularSystems");
  const generateAllowed = useFeatureIsOn(FLAGS.GENERATE_POTENTIAL);
  const potentials = usePotentials(system.id);
  const [draft, setDraft] = useState<Draft | null>(null);
  const [draftWarning, setDraftWarning] = useState(false);
  const list = potentials.data?.data ?? [];
  const serverDraft = list.some((potential) => potential.is_draft);

  function open(kind: Draft) {
    if (draft !== null || serverDraft) {
      setDraftWarning(true);
      return;
    }
    setDraftWarning(false);
    setDraft(kind);
  }

  function discard() {
    setDraft(null);
    setDraftWarning(false);
  }

  const create = usePotentialCreation(system.id, discard);

  return (
    <Stack gap="lg">
      <PotentialsHeader generateAllowed={generateAllowed} onAdd={open} />

      {draftWarning ? (
        <Alert color="yellow" role="alert" withCloseButton onClose={() => setDraftWarning(false)}>
          {t("potentials.finishDraft")}
        </Alert>
      ) : null}

      {draft ? (
        <Card withBorder padding="lg" radius="md" bg="var(--mantine-color-gray-0)">
          {draft === "generate" ? (
            <GeneratePotentialForm submitting={create.isPending} onSubmit={create.generate} onDiscard={discard} />
          ) : (
            <UploadPotentialForm submitting={create.isPending} onSubmit={create.upload} onDiscard={discard} />
          )}
        </Card>
      ) : null}

      {potentials.isPending ? (
        <Loader aria-label={t("loading")} />
      ) : potentials.isError ? (
        <Alert color="red">{t("potentials.loadFailed")}</Alert>
      ) : list.length === 0 && draft === null ? (
        <Text c="dimmed">{t("potentials.none")}</Text>
      ) : (
        [...list]
          .reverse()
          .map((potential) => (
            <PotentialCard
              key={potential.id}
              system={system}
              potential={potential}
              pendingFile={create.pendingFiles[potential.id]}
            />
          ))
      )}
    </Stack>
  );
}

/** Creates a potential from either form, one per submit however fast it is clicked; `onCreated`
 * closes the form. An upload's chosen .top is kept by the potential created for it, for its card
 * to send. */
function usePotentialCreation(systemId: string, onCreated: () => void) {
  const { t } = useTranslation("molecularSystems");
  const [pendingFiles, setPendingFiles] = useState<Record<string, File>>({});
  const creating = useRef(false);
  const create = useCreatePotential(systemId, {
    onError: (error) => failureToast(t("potentials.createFailed"), error),
    onSettled: () => {
      creating.current = false;
    },
  });

  function generate(values: GeneratePotentialFormInput) {
    if (creating.current) return;
    creating.current = true;
    create.mutate({ origin: "generate", ...values }, { onSuccess: onCreated });
  }

  function upload({ name, description, file }: UploadPotentialValues) {
    if (creating.current) return;
    creating.current = true;
    create.mutate(
      { origin: "upload", name, description },
      {
        onSuccess: (potential) => {
          setPendingFiles((files) => ({ ...files, [potential.id]: file }));
          onCreated();
        },
      },
    );
  }
  return { generate, upload, pendingFiles, isPending: create.isPending };
}

/** The title, the step's intro and 'Add potential' → Generate (when allowed) or Upload file. */
function PotentialsHeader({ generateAllowed, onAdd }: { generateAllowed: boolean; onAdd: (kind: Draft) => void }) {
  const { t } = useTranslation("molecularSystems");
  return (
    <Group justify="space-between" align="flex-start">
      <Stack gap={2}>
        <Title order={3}>{t("potentials.title")}</Title>
        <Text size="sm" c="dimmed" maw={640}>
          {t("potentials.intro")}
        </Text>
      </Stack>
      <Menu position="bottom-end" withinPortal>
        <Menu.Target>
          <Button rightSection={<IconChevronDown size={16} />}>{t("potentials.add")}</Button>
        </Menu.Target>
        <Menu.Dropdown>
          {generateAllowed ? (
            <Menu.Item leftSection={<IconFlask size={16} />} onClick={() => onAdd("generate")}>
              {t("potentials.addGenerate")}
            </Menu.Item>
          ) : null}
          <Menu.Item leftSection={<IconFileUpload size={16} />} onClick={() => onAdd("upload")}>
            {t("potentials.addUpload")}
          </Menu.Item>
        </Menu.Dropdown>
      </Menu>
    </Group>
  );
}
