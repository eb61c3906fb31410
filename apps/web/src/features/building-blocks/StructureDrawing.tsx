import { Box, Text } from "@mantine/core";
import type { RDKitModule } from "@polyforge/contracts/smiles/rdkit";
import DOMPurify from "dompurify";
import { useLayoutEffect, useMemo, useRef } from "react";
import { useTranslation } from "react-i18next";
import { drawConnectionSvg } from "../../lib/chemistry/drawing";

const WIDTH = 300;
const HEIGHT = 190;

/**
 * A SMILES drawn in 2D with its connection points labelled. RDKit's SVG goes through DOMPurify and is
 * inserted as DOM nodes, never as raw HTML.
 */
export function StructureDrawing({ rdkit, smiles }: { rdkit: RDKitModule | undefined; smiles: string }) {
  const { t } = useTranslation("buildingBlocks");
  const container = useRef<HTMLDivElement>(null);
  const svg = useMemo(
    () => (rdkit && smiles.trim() ? drawConnectionSvg(rdkit, smiles, { width: WIDTH, height: HEIGHT }) : null),
    [rdkit, smiles],
  );

  useLayoutEffect(() => {
    const target = container.current;
    if (!target) return;
    if (!svg) {
      target.replaceChildren();
      return;
    }
    const clean = DOMPurify.sanitize(svg, { USE_PROFILES: { svg: true }, RETURN_DOM_FRAGMENT: true });
    target.replaceChildren(clean);
  }, [svg]);

  let placeholder: string | null = null;
  if (!rdkit) placeholder = t("drawing.loading");
  else if (!smiles.trim()) placeholder = t("drawing.empty");
  else if (!svg) placeholder = t("drawing.cannotDraw");

  return (
    <Box
      w={WIDTH + 2}
      h={HEIGHT + 2}
      bd="1px solid var(--mantine-color-gray-3)"
      style={{ borderRadius: "var(--mantine-radius-sm)", display: "grid", placeItems: "center", flexShrink: 0 }}
      role="img"
      aria-label={svg ? t("drawing.label", { smiles }) : (placeholder ?? "")}
    >
      <div ref={container} data-testid="structure-drawing" hidden={!svg} />
      {placeholder ? (
        <Text size="sm" c="dimmed" ta="center" px="sm">
          {placeholder}
        </Text>
      ) : null}
    </Box>
  );
}
