#!/usr/bin/env python3
"""Checks a SARIF 2.1.0 log written by `gpueq race --sarif` or `gpueq check --sarif` against the parts of the SARIF 2.1.0
schema it uses (sarifLog, run, tool.driver with rules, result, location, physicalLocation,
artifactLocation, region, message), and that results refer to their rules consistently.
With the jsonschema module the subset below is validated as a JSON schema; the consistency checks
run in any case.

usage: check_sarif.py LOG.sarif [--rule ID]... [--uri-suffix .cu] [--results N]
Prints "sarif ok: N results" or the first problem (exit 1)."""
import json
import sys

MESSAGE = {"type": "object", "required": ["text"], "properties": {"text": {"type": "string"}}}
REGION = {"type": "object", "required": ["startLine"],
          "properties": {"startLine": {"type": "integer", "minimum": 1},
                         "startColumn": {"type": "integer", "minimum": 1}}}
LOCATION = {
    "type": "object",
    "required": ["physicalLocation"],
    "properties": {
        "id": {"type": "integer", "minimum": -1},
        "message": MESSAGE,
        "physicalLocation": {
            "type": "object",
            "required": ["artifactLocation"],
            "additionalProperties": False,
            "properties": {
                "artifactLocation": {
                    "type": "object", "required": ["uri"], "additionalProperties": False,
                    "properties": {"uri": {"type": "string", "minLength": 1}, "uriBaseId": {"type": "string"}}},
                "region": REGION,
            },
        },
    },
    "additionalProperties": False,
}
LEVEL = {"enum": ["none", "note", "warning", "error"]}
SCHEMA = {
    "type": "object",
    "required": ["version", "runs", "$schema"],
    "properties": {
        "$schema": {"const": "https://json.schemastore.org/sarif-2.1.0.json"},
        "version": {"const": "2.1.0"},
        "runs": {
            "type": "array", "minItems": 1,
            "items": {
                "type": "object", "required": ["tool", "results"],
                "properties": {
                    "tool": {
                        "type": "object", "required": ["driver"],
                        "properties": {"driver": {
                            "type": "object", "required": ["name", "rules"],
                            "properties": {
                                "name": {"const": "gpueq"},
                                "rules": {"type": "array", "items": {
                                    "type": "object", "required": ["id", "shortDescription"],
                                    "properties": {"id": {"type": "string"},
                                                   "shortDescription": MESSAGE,
                                                   "defaultConfiguration": {
                                                       "type": "object", "properties": {"level": LEVEL}}}}}}}}},
                    "invocations": {"type": "array", "items": {
                        "type": "object", "required": ["executionSuccessful"],
                        "properties": {"executionSuccessful": {"type": "boolean"}, "exitCode": {"type": "integer"}}}},
                    "originalUriBaseIds": {"type": "object", "additionalProperties": {
                        "type": "object", "required": ["uri"], "properties": {"uri": {"type": "string"}}}},
                    "results": {"type": "array", "items": {
                        "type": "object", "required": ["ruleId", "message", "level", "locations"],
                        "additionalProperties": False,
                        "properties": {
                            "ruleId": {"type": "string"},
                            "ruleIndex": {"type": "integer", "minimum": -1},
                            "level": LEVEL,
                            "message": MESSAGE,
                            "locations": {"type": "array", "minItems": 1, "maxItems": 1, "items": LOCATION},
                            "relatedLocations": {"type": "array", "items": LOCATION},
                        }}},
                },
            },
        },
    },
}


def fail(why):
    print("sarif check failed: " + why)
    sys.exit(1)


def main(argv):
    if len(argv) < 2:
        fail("usage: check_sarif.py LOG.sarif [--rule ID]... [--uri-suffix S] [--results N]")
    path, rules_wanted, suffix, count = argv[1], [], None, None
    i = 2
    while i < len(argv):
        if argv[i] == "--rule":
            rules_wanted.append(argv[i + 1])
        elif argv[i] == "--uri-suffix":
            suffix = argv[i + 1]
        elif argv[i] == "--results":
            count = int(argv[i + 1])
        else:
            fail("unknown argument " + argv[i])
        i += 2
    with open(path, encoding="utf-8") as f:
        log = json.load(f)
    try:
        import jsonschema
        try:
            jsonschema.validate(log, SCHEMA)
        except jsonschema.ValidationError as e:
            fail("schema: " + e.message + " at " + "/".join(str(p) for p in e.absolute_path))
    except ImportError:
        pass
    results = []
    for run in log.get("runs", []):
        rules = [r["id"] for r in run["tool"]["driver"]["rules"]]
        if len(set(rules)) != len(rules):
            fail("duplicate rule ids")
        bases = run.get("originalUriBaseIds", {})
        for r in run["results"]:
            if r["ruleId"] not in rules:
                fail("result with unknown rule " + r["ruleId"])
            if "ruleIndex" in r and rules[r["ruleIndex"]] != r["ruleId"]:
                fail("ruleIndex %d does not name %s" % (r["ruleIndex"], r["ruleId"]))
            ids = [loc["id"] for loc in r.get("relatedLocations", []) if "id" in loc]
            if len(set(ids)) != len(ids):
                fail("related location ids repeat in a result")
            for loc in r["locations"] + r.get("relatedLocations", []):
                art = loc["physicalLocation"]["artifactLocation"]
                if "uriBaseId" in art and art["uriBaseId"] not in bases:
                    fail("uriBaseId %s is not in originalUriBaseIds" % art["uriBaseId"])
                if " " in art["uri"]:
                    fail("uri with a space: " + art["uri"])
            results.append(r)
    for rule in rules_wanted:
        if not any(r["ruleId"] == rule for r in results):
            fail("no result of rule " + rule)
    if suffix is not None:
        primary = [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results]
        if not any(u.endswith(suffix) for u in primary):
            fail("no primary location ends with " + suffix + ": " + ", ".join(primary))
    if count is not None and len(results) != count:
        fail("%d results, expected %d" % (len(results), count))
    print("sarif ok: %d results" % len(results))


main(sys.argv)
