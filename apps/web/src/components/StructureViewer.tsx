import { ActionIcon, Box, Group, SegmentedControl, Stack, Text, Tooltip } from "@mantine/core";
import { IconFocusCentered, IconMaximize, IconMinimize } from "@tabler/icons-react";
import { useCallback, useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { type CrystalCell, wrapMoleculesIntoCell } from "../lib/chemistry/periodicWrap";
import {
  COLOURINGS,
  type Colouring,
  LARGE_SYSTEM_ATOMS,
  REPRESENTATIONS,
  type Representation,
  viewerOptions,
  viewerStyle,
} from "../lib/chemistry/viewerStyle";

export interface StructureViewerProps {
  /** PDB text with a CRYST1 record (the periodic box). */
  pdb: string;
  atoms: number;
  label: string;
}

interface GLViewer {
  clear(): void;
  render(): void;
  resize(): void;
  zoomTo(): void;
  setStyle(selection: object, style: object): void;
  getView(): number[];
  setView(view: number[]): unknown;
}

/** A CRYST1 that describes a real cell (not the 1 Å placeholder of non-periodic files). */
function usableCell(cell: CrystalCell | undefined): CrystalCell | undefined {
  if (!cell) return undefined;
  const values = [cell.a, cell.b, cell.c, cell.alpha, cell.beta, cell.gamma];
  if (values.some((value) => !Number.isFinite(value)) || Math.min(cell.a, cell.b, cell.c) <= 1.5) return undefined;
  return cell;
}

/** zoomTo centres on the atoms; molecules are kept whole, so in a periodic system they stick out
 * across the faces and the cell would sit off-centre. Centre an orthorhombic cell instead (the
 * zoom already takes the cell in). The view's first three numbers are the scene's offset. */
function centreOnCell(viewer: GLViewer, cell: CrystalCell | undefined) {
  if (!cell || [cell.alpha, cell.beta, cell.gamma].some((angle) => Math.abs(angle - 90) > 1e-3)) return;
  const view = viewer.getView();
  view[0] = -cell.a / 2;
  view[1] = -cell.b / 2;
  view[2] = -cell.c / 2;
  viewer.setView(view);
}

/**
 * An interactive 3D view of a structure with its periodic box (3Dmol.js, WebGL): molecules whole
 * and wrapped into the cell, a choice of representation and colouring, reset view and full screen.
 * Loaded lazily: the library is fetched only when a structure is shown.
 */
type LoadedViewer = { gl: GLViewer; cell?: CrystalCell; molecules?: Int32Array };
type ViewerStyle = { representation: Representation; colouring: Colouring };

/** The 3Dmol viewer in the container, loaded with the structure (molecules wrapped into the cell,
 * the cell drawn and centred) and restyled as the representation or colouring changes. */
function useMolecularViewer(
  container: React.RefObject<HTMLDivElement | null>,
  { pdb, atoms, large }: { pdb: string; atoms: number; large: boolean },
  style: ViewerStyle,
) {
  const viewer = useRef<LoadedViewer | null>(null);
  const [loaded, setLoaded] = useState(false);
  const [periodic, setPeriodic] = useState(false);
  const styleRef = useRef(style);
  styleRef.current = style;

  useEffect(() => {
    const element = container.current;
    if (!element) return;
    let disposed = false;
    void import("3dmol").then(($3Dmol) => {
      if (disposed) return;
      const gl = $3Dmol.createViewer(element, viewerOptions(atoms)) as unknown as GLViewer &
        ReturnType<typeof $3Dmol.createViewer>;
      const model = gl.addModel(pdb, "pdb", { keepH: !large });
      const cell = usableCell(model.getCrystData() as CrystalCell | undefined);
      // Whole molecules, each moved by cell vectors to have its centre in the cell.
      const molecules = cell
        ? wrapMoleculesIntoCell(model.selectedAtoms({}) as Parameters<typeof wrapMoleculesIntoCell>[0], cell)
        : undefined;
      const { representation: shown, colouring: coloured } = styleRef.current;
      gl.setStyle({}, viewerStyle(shown, coloured, molecules));
      if (cell) gl.addUnitCell(model, { box: { color: "purple" } });
      gl.zoomTo();
      centreOnCell(gl, cell);
      gl.render();
      viewer.current = { gl, cell, molecules };
      setPeriodic(cell !== undefined);
      setLoaded(true);
    });
    return () => {
      disposed = true;
      viewer.current?.gl.clear();
      viewer.current = null;
      setLoaded(false);
      element.replaceChildren();
    };
  }, [container, pdb, atoms, large]);

  // A new representation or colouring restyles the loaded model (the view stays where it is).
  useEffect(() => {
    const current = viewer.current;
    if (!loaded || !current) return;
    current.gl.setStyle({}, viewerStyle(style.representation, style.colouring, current.molecules));
    current.gl.render();
  }, [style.representation, style.colouring, loaded]);

  const resetView = useCallback(() => {
    const current = viewer.current;
    if (!current) return;
    current.gl.zoomTo();
    centreOnCell(current.gl, current.cell);
    current.gl.render();
  }, []);

  return { viewer, loaded, periodic, resetView };
}

/** Full screen holds the toolbar and the view; the canvas follows the new size. */
function useFullScreen(frame: React.RefObject<HTMLDivElement | null>, viewer: React.RefObject<LoadedViewer | null>) {
  const [fullScreen, setFullScreen] = useState(false);
  useEffect(() => {
    const changed = () => {
      setFullScreen(document.fullscreenElement === frame.current && frame.current !== null);
      requestAnimationFrame(() => {
        viewer.current?.gl.resize();
        viewer.current?.gl.render();
      });
    };
    document.addEventListener("fullscreenchange", changed);
    return () => document.removeEventListener("fullscreenchange", changed);
  }, [frame, viewer]);
  const toggleFullScreen = useCallback(() => {
    if (document.fullscreenElement) void document.exitFullscreen();
    else void frame.current?.requestFullscreen?.();
  }, [frame]);
  return { fullScreen, toggleFullScreen };
}

/**
 * An interactive 3D view of a structure with its periodic box (3Dmol.js, WebGL): molecules whole
 * and wrapped into the cell, a choice of representation and colouring, reset view and full screen.
 * Loaded lazily: the library is fetched only when a structure is shown.
 */
export default function StructureViewer({ pdb, atoms, label }: StructureViewerProps) {
  const { t } = useTranslation();
  const frame = useRef<HTMLDivElement>(null);
  const container = useRef<HTMLDivElement>(null);
  const large = atoms > LARGE_SYSTEM_ATOMS;
  const [representation, setRepresentation] = useState<Representation>(large ? "lines" : "sticks");
  const [colouring, setColouring] = useState<Colouring>("element");
  const { viewer, loaded, periodic, resetView } = useMolecularViewer(
    container,
    { pdb, atoms, large },
    { representation, colouring },
  );
  const { fullScreen, toggleFullScreen } = useFullScreen(frame, viewer);

  return (
    <Stack ref={frame} gap="xs" bg="white" p={fullScreen ? "md" : 0} h={fullScreen ? "100vh" : undefined}>
      <ViewerToolbar
        style={{ representation, colouring }}
        onRepresentation={setRepresentation}
        onColouring={setColouring}
        loaded={loaded}
        onReset={resetView}
        fullScreen={fullScreen}
        onFullScreen={toggleFullScreen}
      />
      <Box
        ref={container}
        role="img"
        aria-label={label}
        data-testid="structure-viewer"
        data-representation={representation}
        data-colouring={colouring}
        pos="relative"
        h={fullScreen ? undefined : 420}
        style={{
          flex: fullScreen ? 1 : undefined,
          border: "1px solid var(--mantine-color-gray-3)",
          borderRadius: 8,
          overflow: "hidden",
        }}
      />
      {periodic || large ? (
        <Text size="xs" c="dimmed">
          {[
            periodic ? t("viewer.wrapped") : null,
            large ? t("viewer.hydrogensHidden", { count: LARGE_SYSTEM_ATOMS.toLocaleString("en-US") }) : null,
          ]
            .filter(Boolean)
            .join(" ")}
        </Text>
      ) : null}
    </Stack>
  );
}

type ViewerToolbarProps = {
  style: ViewerStyle;
  onRepresentation: (value: Representation) => void;
  onColouring: (value: Colouring) => void;
  loaded: boolean;
  onReset: () => void;
  fullScreen: boolean;
  onFullScreen: () => void;
};

/** Representation and colouring choices, reset view and full screen. */
function ViewerToolbar({
  style,
  onRepresentation,
  onColouring,
  loaded,
  onReset,
  fullScreen,
  onFullScreen,
}: ViewerToolbarProps) {
  const { t } = useTranslation();
  return (
    <Group gap="sm" justify="space-between" wrap="wrap">
      <Group gap="sm" wrap="wrap">
        <SegmentedControl
          size="xs"
          aria-label={t("viewer.representation")}
          value={style.representation}
          onChange={(value) => onRepresentation(value as Representation)}
          data={REPRESENTATIONS.map((value) => ({ value, label: t(`viewer.representations.${value}`) }))}
        />
        <Group gap={6} wrap="nowrap">
          <Text size="xs" c="dimmed">
            {t("viewer.colour")}
          </Text>
          <SegmentedControl
            size="xs"
            aria-label={t("viewer.colour")}
            value={style.colouring}
            onChange={(value) => onColouring(value as Colouring)}
            data={COLOURINGS.map((value) => ({ value, label: t(`viewer.colours.${value}`) }))}
          />
        </Group>
      </Group>
      <Group gap={4}>
        <Tooltip label={t("viewer.resetView")}>
          <ActionIcon variant="default" aria-label={t("viewer.resetView")} onClick={onReset} disabled={!loaded}>
            <IconFocusCentered size={16} />
          </ActionIcon>
        </Tooltip>
        <Tooltip label={t(fullScreen ? "viewer.exitFullScreen" : "viewer.fullScreen")}>
          <ActionIcon
            variant="default"
            aria-label={t(fullScreen ? "viewer.exitFullScreen" : "viewer.fullScreen")}
            onClick={onFullScreen}
          >
            {fullScreen ? <IconMinimize size={16} /> : <IconMaximize size={16} />}
          </ActionIcon>
        </Tooltip>
      </Group>
    </Group>
  );
}
