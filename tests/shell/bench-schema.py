#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Validate a bench results file against docs/bench-results.schema.json.

Usage: bench-schema.py SCHEMA FILE
Exit 0 when FILE is valid, 1 with the first error on stderr (2: usage).

No dependencies: implements the JSON Schema (draft-07) keywords the schema
uses (type, required, properties, additionalProperties, items, enum,
minimum, maximum, minItems, maxItems, pattern, oneOf, $ref to
#/definitions/...) and refuses a schema using any other, so that a check
is never silently skipped.
"""
import json
import re
import sys

ANNOTATIONS = {"$schema", "$id", "title", "description", "definitions"}
KEYWORDS = {"type", "required", "properties", "additionalProperties",
            "items", "enum", "minimum", "maximum", "minItems", "maxItems",
            "pattern", "oneOf", "$ref"}


class Invalid(Exception):
    pass


def type_ok(value, name):
    if name == "null":
        return value is None
    if name == "boolean":
        return isinstance(value, bool)
    if name == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if name == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if name == "string":
        return isinstance(value, str)
    if name == "array":
        return isinstance(value, list)
    if name == "object":
        return isinstance(value, dict)
    raise Invalid("schema: unknown type %r" % name)


def where(path):
    return "/" + "/".join(str(p) for p in path)


def validate(root, schema, value, path):
    unknown = set(schema) - KEYWORDS - ANNOTATIONS
    if unknown:
        raise Invalid("schema: unsupported keyword(s) %s" %
                      ", ".join(sorted(unknown)))
    if "$ref" in schema:
        ref = schema["$ref"]
        if not ref.startswith("#/definitions/"):
            raise Invalid("schema: unsupported $ref %r" % ref)
        validate(root, root["definitions"][ref[len("#/definitions/"):]],
                 value, path)
    if "type" in schema:
        types = schema["type"]
        types = types if isinstance(types, list) else [types]
        if not any(type_ok(value, t) for t in types):
            raise Invalid("%s: expected %s, got %s" %
                          (where(path), " or ".join(types),
                           json.dumps(value)[:60]))
    if "enum" in schema and value not in schema["enum"]:
        raise Invalid("%s: %s is not one of %s" %
                      (where(path), json.dumps(value)[:60],
                       json.dumps(schema["enum"])))
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if number and "minimum" in schema and value < schema["minimum"]:
        raise Invalid("%s: %s is below the minimum %s" %
                      (where(path), value, schema["minimum"]))
    if number and "maximum" in schema and value > schema["maximum"]:
        raise Invalid("%s: %s is above the maximum %s" %
                      (where(path), value, schema["maximum"]))
    if isinstance(value, str) and "pattern" in schema:
        if not re.search(schema["pattern"], value):
            raise Invalid("%s: %r does not match %s" %
                          (where(path), value[:60], schema["pattern"]))
    if isinstance(value, list):
        if "minItems" in schema and len(value) < schema["minItems"]:
            raise Invalid("%s: fewer than %d items" %
                          (where(path), schema["minItems"]))
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            raise Invalid("%s: more than %d items" %
                          (where(path), schema["maxItems"]))
        if "items" in schema:
            for i, item in enumerate(value):
                validate(root, schema["items"], item, path + [i])
    if isinstance(value, dict):
        for key in schema.get("required", []):
            if key not in value:
                raise Invalid("%s: missing required %r" % (where(path), key))
        props = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        for key, item in value.items():
            if key in props:
                validate(root, props[key], item, path + [key])
            elif extra is False:
                raise Invalid("%s: unknown member %r" % (where(path), key))
            elif isinstance(extra, dict):
                validate(root, extra, item, path + [key])
    if "oneOf" in schema:
        errors, matched = [], 0
        for sub in schema["oneOf"]:
            try:
                validate(root, sub, value, path)
                matched += 1
            except Invalid as e:
                if str(e).startswith("schema:"):
                    raise
                errors.append(str(e))
        if matched != 1:
            raise Invalid("%s: matches %d of the oneOf alternatives (%s)" %
                          (where(path), matched, "; ".join(errors)))


def no_duplicates(pairs):
    seen = {}
    for key, value in pairs:
        if key in seen:
            raise ValueError("duplicate member %r" % key)
        seen[key] = value
    return seen


def no_constant(name):
    raise ValueError("%s is not JSON" % name)


def load(path):
    with open(path, "rb") as f:
        return json.loads(f.read().decode("utf-8"),
                          object_pairs_hook=no_duplicates,
                          parse_constant=no_constant)


def main(argv):
    if len(argv) != 3:
        print("usage: bench-schema.py SCHEMA FILE", file=sys.stderr)
        return 2
    try:
        schema = load(argv[1])
    except (OSError, ValueError) as e:
        print("%s: %s" % (argv[1], e), file=sys.stderr)
        return 1
    try:
        doc = load(argv[2])
    except (OSError, ValueError) as e:
        print("%s: not valid JSON: %s" % (argv[2], e), file=sys.stderr)
        return 1
    try:
        validate(schema, schema, doc, [])
    except Invalid as e:
        print("%s: %s" % (argv[2], e), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
