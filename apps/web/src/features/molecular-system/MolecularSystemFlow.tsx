import { Alert, Button, Group, Loader, Stack, Stepper, Text } from "@mantine/core";
import { type MolecularSystemDetailsForm, potentialsStepEnabled } from "@polyforge/contracts/molecular-systems";
import { useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { toast } from "sonner";
import { ProductError } from "../../lib/api/productError";
import { useCreateMolecularSystem } from "./api/createMolecularSystem";
import { type MolecularSystem, useMolecularSystem } from "./api/getMolecularSystem";
import { DetailsStep } from "./DetailsStep";
import { FileDefinition } from "./FileDefinition";
import { PotentialsStep } from "./PotentialsStep";
import { StructureDefinition } from "./StructureDefinition";
import { StructureFound } from "./StructureFound";

const DETAILS = 0;
const DEFINITION = 1;
const POTENTIALS = 2;

export interface MolecularSystemFlowProps {
  /** The system being defined; none yet on the Details step of a new one. */
  systemId?: string;
  /** The system was created: its id goes into the URL so a reload resumes (SPEC §2). */
  onCreated?: (systemId: string) => void;
  /** The system could not be loaded: the user is sent to the catalogue. */
  onLoadFailed: () => void;
}

/** SPEC §2 Add molecular system: Details → Definition → Potentials, resuming where the system stands. */
export function MolecularSystemFlow({ systemId, onCreated, onLoadFailed }: MolecularSystemFlowProps) {
  const { t } = useTranslation("molecularSystems");
  const system = useMolecularSystem(systemId);
  const [active, setActive] = useActiveStep(systemId, system.data);
  const create = useCreateOnce(onCreated);
  const unreadable = systemUnreadable(system);
  useEffect(() => {
    if (!unreadable) return;
    toast.error(t("loadFailed"));
    onLoadFailed();
  }, [unreadable, onLoadFailed, t]);

  if (systemId && !system.data) return <Loader aria-label={t("loading")} />;
  const data = system.data;
  const potentialsOpen = data ? potentialsStepEnabled(data.origin, data.system_data.status) : false;

  return (
    <Stack gap="lg">
      <Stepper
        active={active}
        onStepClick={(step) => {
          if (step === POTENTIALS && !potentialsOpen) return;
          if (data) setActive(step);
        }}
        allowNextStepsSelect={false}
      >
        <Stepper.Step label={t("steps.details")} description={t("steps.detailsDescription")}>
          {data ? (
            <DetailsSummary system={data} />
          ) : (
            <DetailsStep submitting={create.isPending} onSubmit={create.submit} />
          )}
        </Stepper.Step>
        <Stepper.Step
          label={t("steps.definition")}
          description={t("steps.definitionDescription")}
          disabled={!data}
          allowStepSelect={Boolean(data)}
        >
          {data ? <Definition system={data} /> : null}
        </Stepper.Step>
        <Stepper.Step
          label={t("steps.potentials")}
          description={t("steps.potentialsDescription")}
          disabled={!potentialsOpen}
          allowStepSelect={potentialsOpen}
        >
          {data && potentialsOpen && active === POTENTIALS ? <PotentialsStep system={data} /> : null}
        </Stepper.Step>
      </Stepper>
      {data ? <StepNavigation active={active} potentialsOpen={potentialsOpen} onMove={setActive} /> : null}
    </Stack>
  );
}

/**
 * The flow is left when the system cannot be read at all, or is gone (404). A refresh that fails
 * while it is shown (a notification's refetch on a busy server) keeps the user, and what they were
 * typing, where they are: the next notification or poll reads it again.
 */
function systemUnreadable(system: { isError: boolean; data?: unknown; error: unknown }): boolean {
  if (!system.isError) return false;
  return system.data === undefined || (system.error instanceof ProductError && system.error.status === 404);
}

/**
 * The step shown: Definition once the system exists (its id arrives after Details), and Potentials
 * when the system opened already has potentials, as that is where it stands.
 */
function useActiveStep(systemId: string | undefined, loaded: MolecularSystem | undefined) {
  const [active, setActive] = useState(systemId ? DEFINITION : DETAILS);
  useEffect(() => {
    if (systemId) setActive((step) => (step === DETAILS ? DEFINITION : step));
  }, [systemId]);
  const opened = useRef(false);
  useEffect(() => {
    if (!loaded || opened.current) return;
    opened.current = true;
    if (loaded.potentials.length > 0 && potentialsStepEnabled(loaded.origin, loaded.system_data.status))
      setActive(POTENTIALS);
  }, [loaded]);
  return [active, setActive] as const;
}

/** Details' Next creates the system, once: this flow creates one system and the page then moves on
 * to it (only a failure allows another try), however fast Next is clicked (the pending state
 * re-renders too late). */
function useCreateOnce(onCreated: MolecularSystemFlowProps["onCreated"]) {
  const { t } = useTranslation("molecularSystems");
  const creating = useRef(false);
  const create = useCreateMolecularSystem({
    onSuccess: ({ id }) => {
      toast.success(t("details.created"));
      onCreated?.(id);
    },
    onError: () => toast.error(t("createFailed")),
  });
  function submit(values: MolecularSystemDetailsForm) {
    if (creating.current) return;
    creating.current = true;
    create.mutate(values, {
      onError: () => {
        creating.current = false;
      },
    });
  }
  return { submit, isPending: create.isPending };
}

/** Previous and Next under the steps; Next to Potentials waits until the structure allows them. */
function StepNavigation({
  active,
  potentialsOpen,
  onMove,
}: {
  active: number;
  potentialsOpen: boolean;
  onMove: (step: number) => void;
}) {
  const { t } = useTranslation("molecularSystems");
  return (
    <Group justify="space-between">
      {active > DETAILS ? (
        <Button variant="default" onClick={() => onMove(active - 1)}>
          {t("navigation.previous")}
        </Button>
      ) : (
        <span />
      )}
      {active < POTENTIALS ? (
        <Button
          onClick={() => onMove(active + 1)}
          disabled={active === DEFINITION && !potentialsOpen}
          title={active === DEFINITION && !potentialsOpen ? t("potentials.stepLocked") : undefined}
        >
          {t("navigation.next")}
        </Button>
      ) : null}
    </Group>
  );
}

function DetailsSummary({ system }: { system: MolecularSystem }) {
  const { t } = useTranslation("molecularSystems");
  return (
    <Stack gap="xs" maw={560}>
      <Text>
        <Text span c="dimmed">
          {t("details.name")}:{" "}
        </Text>
        {system.name}
      </Text>
      <Text>
        <Text span c="dimmed">
          {t("details.description")}:{" "}
        </Text>
        {system.description || t("summary.noDescription")}
      </Text>
      <Text>
        <Text span c="dimmed">
          {t("details.origin")}:{" "}
        </Text>
        {t(`summary.origin_${system.origin}`)}
      </Text>
    </Stack>
  );
}

function Definition({ system }: { system: MolecularSystem }) {
  const { t } = useTranslation("molecularSystems");
  if (system.origin !== "upload" && system.origin !== "smiles")
    return <Alert color="yellow">{t("notMolecular")}</Alert>;
  const { status, structure } = system.system_data;
  const found = structure && (status === "valid" || status === "converted");
  return (
    <Stack gap="xl">
      {system.origin === "smiles" ? <StructureDefinition system={system} /> : <FileDefinition system={system} />}
      {found ? <StructureFound systemId={system.id} name={system.name} summary={structure} /> : null}
    </Stack>
  );
}
