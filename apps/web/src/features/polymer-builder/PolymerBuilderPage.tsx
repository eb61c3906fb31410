import { Button, Group, Loader, Modal, Stack, Text, Title } from "@mantine/core";
import { useNavigate } from "@tanstack/react-router";
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { toast } from "sonner";
import { useClearDraft } from "./api/clearDraft";
import { useDraft } from "./api/getDraft";
import { BuilderStepper } from "./components/BuilderStepper";
import { BuildingBlocksStep } from "./steps/BuildingBlocksStep";
import { CreateStep, type SystemFiling } from "./steps/CreateStep";
import { PolymersStep } from "./steps/PolymersStep";
import { SegmentsStep } from "./steps/SegmentsStep";
import { SimulationProtocolStep } from "./steps/SimulationProtocolStep";
import { SystemSetupStep } from "./steps/SystemSetupStep";
import { blockingStep, type Step, type StepCompletion, stepEnabled, useDraftProgress } from "./useDraftProgress";

/** /polymer-builder: opens (or starts) the user's draft, then shows the wizard over it. `filing`
 * (composed by the app from the projects feature) lets step 6 file the new system under a project. */
export function PolymerBuilderPage({ filing }: { filing?: SystemFiling }) {
  const { t } = useTranslation("polymerBuilder");
  const draft = useDraft();
  useSendHomeOnFailure(draft.isError);
  return (
    <Stack gap="lg">
      <Title order={2}>{t("title")}</Title>
      {draft.isSuccess ? <Wizard draftId={draft.data.id} filing={filing} /> : <Loading />}
    </Stack>
  );
}

function Loading() {
  const { t } = useTranslation("polymerBuilder");
  return (
    <Group justify="center" p="xl">
      <Loader aria-label={t("common.loading")} />
    </Group>
  );
}

/** SPEC §4: on any failure to load the draft the user is sent home with 'Something went wrong'. */
function useSendHomeOnFailure(failed: boolean) {
  const { t } = useTranslation("polymerBuilder");
  const navigate = useNavigate();
  useEffect(() => {
    if (!failed) return;
    toast.error(t("loadFailed"));
    void navigate({ to: "/" });
  }, [failed, navigate, t]);
}

function Wizard({ draftId, filing }: { draftId: string; filing?: SystemFiling }) {
  const { t } = useTranslation("polymerBuilder");
  const [step, setStep] = useState<Step>(1);
  const [confirmingClear, setConfirmingClear] = useState(false);
  const progress = useDraftProgress();
  useSendHomeOnFailure(progress.failed);

  // Clearing deletes the draft and starts a new one before any list is read again.
  const clear = useClearDraft({
    onSuccess: () => {
      setConfirmingClear(false);
      setStep(1);
      toast.success(t("clearModal.cleared"));
    },
    onError: () => toast.error(t("clearModal.failed")),
  });

  if (!progress.loaded) return <Loading />;

  const { completion } = progress;
  const next = (step + 1) as Step;
  return (
    <Stack gap="lg">
      <Group justify="space-between" align="flex-start" wrap="nowrap">
        <BuilderStepper active={step} completion={completion} onSelect={setStep} />
        <Button variant="outline" color="red" onClick={() => setConfirmingClear(true)} style={{ flexShrink: 0 }}>
          {t("clearDraft")}
        </Button>
      </Group>

      {step === 1 && <BuildingBlocksStep />}
      {step === 2 && <SegmentsStep />}
      {step === 3 && <PolymersStep />}
      {step === 4 && <SystemSetupStep />}
      {step === 5 && <SimulationProtocolStep />}
      {step === 6 && <CreateStep draftId={draftId} completion={completion} filing={filing} />}

      <Group justify="space-between">
        {step > 1 ? (
          <Button variant="default" onClick={() => setStep((step - 1) as Step)}>
            {t("previous")}
          </Button>
        ) : (
          <span />
        )}
        {step < 6 && (
          <Group gap="sm">
            <NextBlockedReason next={next} completion={completion} />
            <Button onClick={() => setStep(next)} disabled={!stepEnabled(next, completion)}>
              {t("next")}
            </Button>
          </Group>
        )}
      </Group>

      <Modal opened={confirmingClear} onClose={() => setConfirmingClear(false)} title={t("clearModal.title")} centered>
        <Stack>
          <Text>{t("clearModal.body")}</Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setConfirmingClear(false)}>
              {t("clearModal.cancel")}
            </Button>
            <Button color="red" loading={clear.isPending} onClick={() => clear.mutate()}>
              {t("clearModal.confirm")}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
}

/** Why Next is disabled: what the step that holds it back still needs (SPEC §2: say why). */
function NextBlockedReason({ next, completion }: { next: Step; completion: StepCompletion }) {
  const { t } = useTranslation("polymerBuilder");
  const blocking = blockingStep(next, completion);
  if (blocking === null) return null;
  return (
    <Text size="sm" c="dimmed" role="status">
      {next === 6 ? t("create.incomplete") : t(`missing.${blocking}`)}
    </Text>
  );
}
