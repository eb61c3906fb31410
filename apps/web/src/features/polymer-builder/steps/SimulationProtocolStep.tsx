import { Badge, Button, Group, Select, Stack, Switch, Text, TextInput, Title } from "@mantine/core";
import { type UseFormReturnType, useForm } from "@mantine/form";
import { ENSEMBLES, type Ensemble, EQUILIBRATIONS, type Equilibration } from "@polyforge/contracts/enums";
import {
  DEFAULT_PRESSURE_BAR,
  INPUT_PATTERNS,
  type SimulationProtocolFormValues,
  type SimulationProtocolResponse,
  simulatedTimePs,
  simulationProtocolFormFor,
} from "@polyforge/contracts/polymer-builder";
import { TIMESTEP_FS } from "@polyforge/contracts/protocol-bounds";
import { zod4Resolver } from "mantine-form-zod-resolver";
import { useMemo } from "react";
import { useTranslation } from "react-i18next";
import { toast } from "sonner";
import { useJobLimits } from "../../../lib/config/useJobLimits";
import { useErrorsRechecked } from "../../../lib/forms/useErrorsRechecked";
import { useProtocol } from "../api/getProtocol";
import { useSaveProtocol } from "../api/saveProtocol";
import { StepLayout } from "../components/StepLayout";

/** Step 5 ('For advanced users only'): MD with optional minimisation and dynamics. */
export function SimulationProtocolStep() {
  const { t } = useTranslation("polymerBuilder");
  const protocol = useProtocol();
  if (protocol.isError) return <Text c="red">{t("protocol.loadFailed")}</Text>;
  if (!protocol.data) return null;
  return (
    <StepLayout
      main={<ProtocolForm protocol={protocol.data} />}
      summaryTitle={t("protocol.summary")}
      summary={<ProtocolSummary protocol={protocol.data} />}
    />
  );
}

const text = (value: number | null) => (value === null ? "" : String(value));

type ProtocolForm = UseFormReturnType<SimulationProtocolFormValues>;
type PatternedKey = "random_seed" | "minimization_steps" | "dynamics_steps" | "temperature" | "pressure";

function initialProtocolValues(protocol: SimulationProtocolResponse): SimulationProtocolFormValues {
  return {
    simulation: protocol.simulation,
    random_seed: String(protocol.random_seed),
    minimization: protocol.minimization,
    minimization_steps: text(protocol.minimization_steps),
    dynamics: protocol.dynamics,
    dynamics_steps: text(protocol.dynamics_steps),
    temperature: text(protocol.temperature),
    ensemble: protocol.ensemble ?? "",
    pressure: text(protocol.pressure ?? DEFAULT_PRESSURE_BAR),
    equilibration: protocol.equilibration,
  };
}

const number = (value: string) => (value.trim() ? Number(value) : null);

/** The save request; SPEC §5: values behind a toggle that is off are sent unchanged. */
function protocolRequest(v: SimulationProtocolFormValues, protocol: SimulationProtocolResponse) {
  return {
    simulation: "MD" as const,
    random_seed: Number.parseInt(v.random_seed, 10),
    minimization: v.minimization,
    minimization_steps: v.minimization ? number(v.minimization_steps) : protocol.minimization_steps,
    dynamics: v.dynamics,
    dynamics_steps: v.dynamics ? number(v.dynamics_steps) : protocol.dynamics_steps,
    temperature: v.dynamics ? number(v.temperature) : protocol.temperature,
    ensemble: v.dynamics ? (v.ensemble as Ensemble) : protocol.ensemble,
    pressure: v.dynamics && v.ensemble === "NPT" ? number(v.pressure) : protocol.pressure,
    equilibration: v.dynamics ? v.equilibration : protocol.equilibration,
  };
}

/** A field setter, and an onChange that only lets through text matching the field's pattern. */
function fieldSetters(form: ProtocolForm) {
  const set = <K extends keyof SimulationProtocolFormValues>(key: K, value: SimulationProtocolFormValues[K]) =>
    form.setFieldValue(key, value as never);
  const patterned = (key: PatternedKey, pattern: RegExp) => (event: React.ChangeEvent<HTMLInputElement>) => {
    if (pattern.test(event.currentTarget.value)) set(key, event.currentTarget.value);
  };
  return { set, patterned };
}

function ProtocolForm({ protocol }: { protocol: SimulationProtocolResponse }) {
  const { t } = useTranslation("polymerBuilder");
  // This deployment's bounds (temperature, step ceilings).
  const limits = useJobLimits();
  const schema = useMemo(() => simulationProtocolFormFor(limits), [limits]);
  const form = useForm<SimulationProtocolFormValues>({
    mode: "controlled",
    initialValues: initialProtocolValues(protocol),
    // The first message of a field (a bound, 'Required field'), shown as it is typed and gone once right.
    validate: zod4Resolver(schema, { errorPriority: "first" }),
    validateInputOnChange: true,
  });
  useErrorsRechecked(form);
  const save = useSaveProtocol(protocol.id, {
    onSuccess: () => {
      toast.success(t("protocol.saved"));
    },
    onError: (error) => toast.error(t("protocol.saveFailed"), { description: error.message }),
  });
  const submit = form.onSubmit((v) => save.mutate(protocolRequest(v, protocol)));

  return (
    <form noValidate onSubmit={submit} style={{ display: "contents" }}>
      <Group>
        <Title order={3}>{t("protocol.heading")}</Title>
        <Badge color="orange" variant="light">
          {t("protocol.advanced")}
        </Badge>
      </Group>
      <SimulationFields form={form} />
      <DynamicsFields form={form} />
      <Button type="submit" loading={save.isPending} w="fit-content">
        {t("protocol.save")}
      </Button>
    </form>
  );
}

/** The simulation kind, the random seed and the minimisation toggle with its steps. */
function SimulationFields({ form }: { form: ProtocolForm }) {
  const { t } = useTranslation("polymerBuilder");
  const { values, errors } = form;
  const { set, patterned } = fieldSetters(form);
  return (
    <>
      <Select
        w={280}
        label={t("protocol.simulation")}
        data={[{ value: "MD", label: t("protocol.md") }]}
        value={values.simulation}
        error={errors.simulation}
        onChange={(v) => v && set("simulation", v as "MD")}
        allowDeselect={false}
      />
      <TextInput
        w={200}
        label={t("protocol.randomSeed")}
        description={t("protocol.randomSeedHelp")}
        value={values.random_seed}
        error={errors.random_seed}
        onChange={patterned("random_seed", INPUT_PATTERNS.signedInteger)}
      />
      <Stack gap="xs">
        <Switch
          label={t("protocol.minimization")}
          checked={values.minimization}
          onChange={(e) => set("minimization", e.currentTarget.checked)}
        />
        <TextInput
          w={200}
          label={t("protocol.minimizationSteps")}
          disabled={!values.minimization}
          value={values.minimization_steps}
          error={errors.minimization_steps}
          onChange={patterned("minimization_steps", INPUT_PATTERNS.digits)}
        />
      </Stack>
    </>
  );
}

/** The dynamics toggle with steps, temperature, ensemble (pressure for NPT), simulated time and equilibration. */
function DynamicsFields({ form }: { form: ProtocolForm }) {
  const { t } = useTranslation("polymerBuilder");
  const { values, errors } = form;
  const { set, patterned } = fieldSetters(form);
  const steps = Number.parseInt(values.dynamics_steps, 10);
  return (
    <Stack gap="xs">
      <Switch
        label={t("protocol.dynamics")}
        checked={values.dynamics}
        onChange={(e) => set("dynamics", e.currentTarget.checked)}
      />
      <Group align="flex-start">
        <TextInput
          w={200}
          label={t("protocol.dynamicsSteps")}
          disabled={!values.dynamics}
          value={values.dynamics_steps}
          error={errors.dynamics_steps}
          onChange={patterned("dynamics_steps", INPUT_PATTERNS.digits)}
        />
        <TextInput
          w={200}
          label={t("protocol.temperature")}
          disabled={!values.dynamics}
          value={values.temperature}
          error={errors.temperature}
          onChange={patterned("temperature", INPUT_PATTERNS.decimal)}
        />
        <Select
          w={340}
          label={t("protocol.ensemble")}
          disabled={!values.dynamics}
          data={ENSEMBLES.map((value) => ({ value, label: t(`protocol.ensemble${value}`) }))}
          value={values.ensemble || null}
          error={errors.ensemble}
          onChange={(v) => set("ensemble", v ?? "")}
        />
        {values.ensemble === "NPT" ? (
          <TextInput
            w={160}
            label={t("protocol.pressure")}
            disabled={!values.dynamics}
            value={values.pressure}
            error={errors.pressure}
            onChange={patterned("pressure", INPUT_PATTERNS.decimal)}
          />
        ) : null}
      </Group>
      <Text size="sm" c="dimmed" data-testid="simulated-time">
        {Number.isFinite(steps)
          ? t("protocol.simulatedTime", { steps, fs: TIMESTEP_FS, ps: simulatedTimePs(steps) })
          : t("protocol.timestep", { fs: TIMESTEP_FS })}
      </Text>
      <Select
        w={340}
        label={t("protocol.equilibration")}
        description={t("protocol.equilibrationHelp")}
        disabled={!values.dynamics}
        data={EQUILIBRATIONS.map((value) => ({ value, label: equilibrationLabel(t, value) }))}
        value={values.equilibration}
        error={errors.equilibration}
        onChange={(v) => v && set("equilibration", v as Equilibration)}
        allowDeselect={false}
      />
    </Stack>
  );
}

function equilibrationLabel(t: (key: string) => string, value: Equilibration): string {
  return value === "melt_21_step" ? t("protocol.equilibrationMelt") : t("protocol.equilibrationNone");
}

export function ProtocolSummary({ protocol }: { protocol: SimulationProtocolResponse }) {
  const { t } = useTranslation("polymerBuilder");
  const onOff = (on: boolean) => (on ? t("protocol.on") : t("protocol.off"));
  return (
    <Stack gap={2}>
      <Text size="sm">
        {t("protocol.simulation")}: {protocol.simulation}
      </Text>
      <Text size="sm">
        {t("protocol.randomSeed")}: {protocol.random_seed}
      </Text>
      <Text size="sm">
        {t("protocol.minimization")}: {onOff(protocol.minimization)}
        {protocol.minimization && ` (${protocol.minimization_steps})`}
      </Text>
      <Text size="sm">
        {t("protocol.dynamics")}: {onOff(protocol.dynamics)}
      </Text>
      {protocol.dynamics && (
        <>
          <Text size="sm">
            {t("protocol.dynamicsSteps")}: {protocol.dynamics_steps}
            {protocol.dynamics_steps !== null &&
              ` (${t("protocol.simulatedTimeShort", { ps: simulatedTimePs(protocol.dynamics_steps) })})`}
          </Text>
          <Text size="sm">
            {t("protocol.temperature")}: {protocol.temperature}
          </Text>
          <Text size="sm">
            {t("protocol.ensemble")}: {protocol.ensemble}
          </Text>
          {protocol.ensemble === "NPT" && (
            <Text size="sm">
              {t("protocol.pressure")}: {protocol.pressure}
            </Text>
          )}
          <Text size="sm">
            {t("protocol.equilibration")}: {equilibrationLabel(t, protocol.equilibration)}
          </Text>
        </>
      )}
    </Stack>
  );
}
