"""The pydantic job models and the JSON Schema exported from the zod contract accept and reject the
same jobs."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from conftest import ETHYLENE, homopolymer_job
from polyforge_engine.events import EngineError
from polyforge_engine.job import BuildJob, parse_build_job
from pydantic import ValidationError

SCHEMA = json.loads((Path(__file__).parents[1] / "polyforge_engine" / "schemas" / "build_job.schema.json").read_text())


def _changed(path: list[Any], value: Any) -> dict[str, Any]:
    job = copy.deepcopy(homopolymer_job(ETHYLENE, 5, 2))
    target = job
    for key in path[:-1]:
        target = target[key]
    if value is KeyError:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return job


ACCEPTED = {
    "density cell": _changed(["system_setup", "density"], 0.5),
    "cell sides": _changed(
        ["system_setup"],
        {**homopolymer_job(ETHYLENE, 5, 2)["system_setup"], "cell_dimension_selector": "cell_sides", "cell_sides": [30, 30, 40], "density": None},
    ),
    "random seed -1": _changed(["simulation_protocol", "random_seed"], -1),
    "unknown extra key": _changed(["system", "description"], "ignored"),
}
REJECTED = {
    "density selector without density": _changed(["system_setup", "density"], None),
    "unknown block type": _changed(["blocks", 0, "type"], "branched"),
    "seed below -1": _changed(["simulation_protocol", "random_seed"], -2),
    "occurrence 0": _changed(["system_setup", "polymers", 0, "occurrence"], 0),
    "fractional occurrence": _changed(["system_setup", "polymers", 0, "occurrence"], 1.5),
    "not a uuid": _changed(["polymers", 0, "id"], "polymer-1"),
    "unknown force field": _changed(["polymers", 0, "force_field"], "opls"),
    "missing segments": _changed(["segments"], KeyError),
    "mask of 2": _changed(["segments", 0, "data", "mask"], [1, 2]),
    "two cell sides": _changed(
        ["system_setup"], {**homopolymer_job(ETHYLENE, 5, 2)["system_setup"], "cell_dimension_selector": "cell_sides", "cell_sides": [30, 30]}
    ),
}


@pytest.mark.parametrize("name", sorted(ACCEPTED))
def test_both_accept(name: str) -> None:
    jsonschema.validate(ACCEPTED[name], SCHEMA)
    assert isinstance(parse_build_job(ACCEPTED[name]), BuildJob)


@pytest.mark.parametrize("name", sorted(REJECTED))
def test_both_reject(name: str) -> None:
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(REJECTED[name], SCHEMA)
    with pytest.raises(ValidationError):
        BuildJob.model_validate_json(json.dumps(REJECTED[name]))
    with pytest.raises(EngineError) as caught:
        parse_build_job(REJECTED[name])
    assert caught.value.code == "INVALID_INPUT"
