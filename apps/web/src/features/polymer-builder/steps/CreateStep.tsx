import { Alert, Anchor, Button, Card, Loader, Modal, Stack, Table, Text, TextInput, Title } from "@mantine/core";
import { useForm } from "@mantine/form";
import type { BuildingBlock } from "@polyforge/contracts/building-blocks";
import { polymerForceFieldLabel } from "@polyforge/contracts/polymers";
import { createSystemForm } from "@polyforge/contracts/systems";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useNavigate } from "@tanstack/react-router";
import { zod4Resolver } from "mantine-form-zod-resolver";
import { type ReactNode, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { toast } from "sonner";
import { blockQueryOptions } from "../../../lib/api/buildingBlock";
import { SYSTEMS_QUERY_KEY } from "../../../lib/api/systems";
import { queryKeys } from "../api/builderKeys";
import { finishDraft } from "../api/finishDraft";
import { useDraftPolymers } from "../api/getDraftPolymers";
import { useDraftSegments } from "../api/getDraftSegments";
import { useProtocol } from "../api/getProtocol";
import { useSetup } from "../api/getSetup";
import { allStepsComplete, type StepCompletion } from "../useDraftProgress";
import { ReviewComposition } from "./ReviewComposition";
import { ProtocolSummary } from "./SimulationProtocolStep";
import { SetupSummary } from "./SystemSetupStep";

/** Filing the new system under a project, composed by the app (features do not import each other). */
export interface SystemFiling {
  /** A field choosing where to file it (null: nowhere). */
  field: (props: { value: string | null; onChange: (value: string | null) => void }) => ReactNode;
  /** Files the created system; a failure is reported by it and does not undo the creation. */
  file: (system: { id: string; name: string }, projectId: string) => Promise<void>;
}

/** Step 6: name the system and create it once every earlier step is complete. */
export function CreateStep({
  draftId,
  completion,
  filing,
}: {
  draftId: string;
  completion: StepCompletion;
  filing?: SystemFiling;
}) {
  const { t } = useTranslation("polymerBuilder");
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const form = useForm<{ name: string; project_id: string | null }>({
    mode: "controlled",
    initialValues: { name: "", project_id: null },
    validate: zod4Resolver(createSystemForm, { errorPriority: "first" }),
    validateInputOnChange: true,
  });
  const complete = allStepsComplete(completion);
  const create = useMutation({
    mutationFn: (systemName: string) => finishDraft(draftId, { name: systemName, is_draft: false }),
    onSuccess: async (system) => {
      queryClient.removeQueries({ queryKey: queryKeys.all });
      const projectId = form.getValues().project_id;
      if (filing && projectId) await filing.file(system, projectId);
      await queryClient.invalidateQueries({ queryKey: SYSTEMS_QUERY_KEY });
      toast.success(t("create.created"));
      await navigate({ to: "/systems", search: { type: system.type } });
    },
    onError: (e) => toast.error(t("create.failed"), { description: e.message }),
  });

  // A second click while the system is being created sends nothing (the pending state re-renders
  // too late for a double click).
  const creating = useRef(false);
  const submit = form.onSubmit((values) => {
    if (creating.current) return;
    creating.current = true;
    create.mutate(createSystemForm.parse(values).name, {
      onSettled: () => {
        creating.current = false;
      },
    });
  });

  return (
    <Stack>
      <Title order={3}>{t("create.heading")}</Title>
      <form noValidate onSubmit={submit}>
        <Stack>
          <TextInput w={360} label={t("create.systemName")} {...form.getInputProps("name")} />
          {filing?.field({
            value: form.values.project_id,
            onChange: (value) => form.setFieldValue("project_id", value),
          })}
          <Button type="submit" w="fit-content" disabled={!complete} loading={create.isPending}>
            {t("create.button")}
          </Button>
        </Stack>
      </form>
      {complete ? <Review /> : <Alert color="yellow">{t("create.incomplete")}</Alert>}
    </Stack>
  );
}

/** The review summary: simulation parameters, system setup, polymers with segments and blocks. */
function Review() {
  const { t } = useTranslation("polymerBuilder");
  const protocol = useProtocol();
  const setup = useSetup();
  const polymers = useDraftPolymers();
  const segments = useDraftSegments();
  const [blockId, setBlockId] = useState<string | null>(null);
  const segmentById = new Map((segments.data?.data ?? []).map((s) => [s.id, s]));

  return (
    <Stack>
      <Title order={4}>{t("create.review")}</Title>
      <Card withBorder>
        <Title order={5}>{t("create.simulationParameters")}</Title>
        {protocol.data && <ProtocolSummary protocol={protocol.data} />}
      </Card>
      <Card withBorder>
        <Title order={5}>{t("create.systemSetup")}</Title>
        {setup.data && <SetupSummary setup={setup.data} />}
      </Card>
      {setup.data && <ReviewComposition setup={setup.data} />}
      <Card withBorder>
        <Title order={5}>{t("create.polymers")}</Title>
        {polymers.data?.data.map((polymer) => (
          <Stack key={polymer.id} gap={2} mt="xs">
            <Text fw={600}>
              {polymer.name} ({polymerForceFieldLabel(polymer.force_field)})
            </Text>
            {polymer.segments.map((link) => {
              const segment = segmentById.get(link.segment_id);
              return (
                <Stack key={link.order} gap={0} pl="md">
                  <Text size="sm">
                    {t("create.segmentLine", {
                      name: link.segment.name,
                      type: t(`segments.types.${link.segment.type}`),
                      occurrence: link.occurrence,
                    })}
                  </Text>
                  <Text size="sm" pl="md">
                    {segment?.blocks.map((block, index) => (
                      <span key={`${block.building_block_id}-${block.order}`}>
                        {index > 0 && ", "}
                        <Anchor component="button" size="sm" onClick={() => setBlockId(block.building_block_id)}>
                          {block.building_block.name}
                        </Anchor>
                        {block.ratio !== null
                          ? ` ×${block.ratio}`
                          : block.occurrence !== null
                            ? ` ×${block.occurrence}`
                            : ""}
                      </span>
                    ))}
                  </Text>
                </Stack>
              );
            })}
          </Stack>
        ))}
      </Card>
      <BlockDetailsModal blockId={blockId} onClose={() => setBlockId(null)} />
    </Stack>
  );
}

function BlockDetailsModal({ blockId, onClose }: { blockId: string | null; onClose: () => void }) {
  const { t } = useTranslation("polymerBuilder");
  const block = useQuery({ ...blockQueryOptions(blockId ?? ""), enabled: blockId !== null });
  return (
    <Modal opened={blockId !== null} onClose={onClose} title={t("create.blockDetails")} centered size="lg">
      {block.isLoading && <Loader size="sm" />}
      {block.isError && <Text c="red">{t("create.blockLoadFailed")}</Text>}
      {block.data && <BlockDetails block={block.data} />}
    </Modal>
  );
}

function BlockDetails({ block }: { block: BuildingBlock }) {
  const { t } = useTranslation("polymerBuilder");
  return (
    <Stack>
      <Text fw={600}>{block.name}</Text>
      <Table>
        <Table.Tbody>
          <Table.Tr>
            <Table.Th>{t("fields.type")}</Table.Th>
            <Table.Td>{t(`blockTypes.${block.type}`)}</Table.Td>
          </Table.Tr>
          {Object.entries(block.data).map(([field, value]) => (
            <Table.Tr key={field}>
              <Table.Th>{t(`fields.${field}`, { defaultValue: field })}</Table.Th>
              <Table.Td style={{ fontFamily: "monospace", wordBreak: "break-all" }}>{value}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <Anchor
        renderRoot={(props) => (
          <Link
            {...props}
            to="/building-blocks/$blockId"
            params={{ blockId: block.id }}
            search={{ type: block.type }}
          />
        )}
      >
        {t("create.goToDefinition")}
      </Anchor>
    </Stack>
  );
}
