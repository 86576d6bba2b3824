"""Validates AWS FIS experiment templates (the JSON files of `nines
experiments --format fis`) against botocore's own service model of FIS:
the input shape of CreateExperimentTemplate, with botocore's
ParamValidator (types, required members, unknown members, minimums), then
the model's maximum lengths, sizes, enums and patterns, which botocore
leaves to the service. The idempotency token is filled as botocore's
client does before it validates. Prints one line per problem and `valid N`;
exits 1 when any file has a problem, 3 when botocore is missing."""

import json
import re
import sys
import uuid

try:
    import botocore.session
    import botocore.validate
except ImportError:
    print("botocore is not installed")
    sys.exit(3)


def limits(value, shape, path, problems):
    meta = shape.metadata
    if shape.type_name == "string" and isinstance(value, str):
        if "max" in meta and len(value) > meta["max"]:
            problems.append(f"{path}: {len(value)} characters, at most {meta['max']}")
        pattern = meta.get("pattern")
        if pattern is not None:
            try:
                rx = re.compile(pattern)
            except re.error:
                rx = None  # \p{L} classes: not in Python's re
            if rx is not None and not rx.fullmatch(value):
                problems.append(f"{path}: {value!r} does not match {pattern}")
        if shape.enum and value not in shape.enum:
            problems.append(f"{path}: {value!r} not in {shape.enum}")
    elif shape.type_name == "structure" and isinstance(value, dict):
        for name, member in shape.members.items():
            if name in value:
                limits(value[name], member, f"{path}.{name}", problems)
    elif shape.type_name == "list" and isinstance(value, list):
        if "max" in meta and len(value) > meta["max"]:
            problems.append(f"{path}: {len(value)} items, at most {meta['max']}")
        for i, item in enumerate(value):
            limits(item, shape.member, f"{path}[{i}]", problems)
    elif shape.type_name == "map" and isinstance(value, dict):
        if "max" in meta and len(value) > meta["max"]:
            problems.append(f"{path}: {len(value)} entries, at most {meta['max']}")
        for key, item in value.items():
            limits(key, shape.key, f"{path} key {key!r}", problems)
            limits(item, shape.value, f"{path}[{key!r}]", problems)


def main(paths):
    model = botocore.session.get_session().get_service_model("fis")
    operation = model.operation_model("CreateExperimentTemplate")
    shape = operation.input_shape
    validator = botocore.validate.ParamValidator()
    bad = 0
    for path in paths:
        with open(path, encoding="utf-8") as f:
            params = json.load(f)
        for name in operation.idempotent_members:
            params.setdefault(name, str(uuid.uuid4()))
        problems = []
        report = validator.validate(params, shape)
        if report.has_errors():
            problems.append(report.generate_report())
        limits(params, shape, "template", problems)
        if problems:
            bad += 1
            for p in problems:
                print(f"{path}: {p}")
    print(f"valid {len(paths) - bad} of {len(paths)}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
