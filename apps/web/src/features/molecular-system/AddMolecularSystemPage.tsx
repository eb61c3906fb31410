import { Stack, Title } from "@mantine/core";
import { useTranslation } from "react-i18next";
import { MolecularSystemFlow, type MolecularSystemFlowProps } from "./MolecularSystemFlow";
import { type NewSystemFiling, NewSystemFilingContext } from "./newSystemFiling";

/** /add-molecular-system (flag add-molecular-system): the flow under its title; with `filing`, the
 * Details step offers a project to file the new system under. */
export function AddMolecularSystemPage({ filing, ...props }: MolecularSystemFlowProps & { filing?: NewSystemFiling }) {
  const { t } = useTranslation("molecularSystems");
  return (
    <Stack gap="lg">
      <Title order={2}>{t("title")}</Title>
      <NewSystemFilingContext.Provider value={filing}>
        <MolecularSystemFlow {...props} />
      </NewSystemFilingContext.Provider>
    </Stack>
  );
}
