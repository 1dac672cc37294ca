#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""ocsf-check: checks of `sysgate export --format ocsf` output for ocsf.sh.
Exit 0 when the check holds, 1 when it does not (with details on stdout),
99 on a harness error (bad usage, unreadable file).

  ocsf-check.py schema REQUIRED EVENTS
      Every line of EVENTS is a JSON object that has the required
      attributes of its class (and of the base event, and of each profile
      named in metadata.profiles), with class_uid, category_uid,
      activity_id, severity_id from the schema's values, type_uid =
      class_uid * 100 + activity_id, metadata.version the schema version
      of REQUIRED (tests/data/ocsf-VERSION-required.json), and each object
      named by an attribute (object_of) with its own required attributes
      and at_least_one constraints.  Prints the count per class.

  ocsf-check.py roundtrip TRAIL EVENTS
      One event per record, in order: each event's unmapped is the record
      itself, metadata.sequence its seq and metadata.correlation_uid its
      run; the counts per record type agree.  Prints them.

  ocsf-check.py has EVENTS PYTHON-EXPR
      Some event e makes EXPR true (e is the event as a dict; get(e,
      "a.b.0.c") reads a path, None when absent).
"""

import json
import sys
from collections import Counter


def load_lines(path):
    out = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.endswith("\n"):
                raise ValueError("%s: line %d has no newline" % (path, n))
            out.append(json.loads(line))
    return out


def get(obj, path):
    for part in path.split("."):
        if isinstance(obj, list) and part.isdigit() and int(part) < len(obj):
            obj = obj[int(part)]
        elif isinstance(obj, dict) and part in obj:
            obj = obj[part]
        else:
            return None
    return obj


def present(obj, key):
    return key in obj and obj[key] is not None


def check_object(req, kind, obj, where, errors):
    spec = req["objects"].get(kind)
    if spec is None:
        return
    items = obj if isinstance(obj, list) else [obj]
    for i, o in enumerate(items):
        w = "%s[%d]" % (where, i) if isinstance(obj, list) else where
        if not isinstance(o, dict):
            errors.append("%s: %s is not an object" % (w, kind))
            continue
        for a in spec.get("required", []):
            if not present(o, a):
                errors.append("%s: %s lacks required %s" % (w, kind, a))
        one = spec.get("at_least_one")
        if one and not any(present(o, a) for a in one):
            errors.append("%s: %s has none of %s" % (w, kind, one))
        for a, values in spec.get("enums", {}).items():
            if a in o and o[a] not in values:
                errors.append("%s: %s.%s = %r" % (w, kind, a, o[a]))
        walk(req, o, w, errors)


def walk(req, obj, where, errors):
    for key, value in obj.items():
        kind = req["object_of"].get(key)
        if kind and key != "unmapped":
            check_object(req, kind, value, where + "." + key, errors)


def check_event(req, e, where):
    errors = []
    for a in req["base_required"]:
        if not present(e, a):
            errors.append("%s: lacks required %s" % (where, a))
    cls = req["classes"].get(str(e.get("class_uid")))
    if cls is None:
        return errors + ["%s: class_uid %r is not one sysgate may emit"
                         % (where, e.get("class_uid"))]
    for a in cls["required"]:
        if not present(e, a):
            errors.append("%s: %s lacks required %s" % (where, cls["name"], a))
    if e.get("category_uid") != cls["category_uid"]:
        errors.append("%s: category_uid %r for class %s"
                      % (where, e.get("category_uid"), cls["name"]))
    if e.get("activity_id") not in cls["activity_ids"]:
        errors.append("%s: activity_id %r not in %s"
                      % (where, e.get("activity_id"), cls["name"]))
    if isinstance(e.get("activity_id"), int) and \
            e.get("type_uid") != e["class_uid"] * 100 + e["activity_id"]:
        errors.append("%s: type_uid %r is not class_uid*100+activity_id"
                      % (where, e.get("type_uid")))
    if e.get("severity_id") not in req["severity_ids"]:
        errors.append("%s: severity_id %r" % (where, e.get("severity_id")))
    if not isinstance(e.get("time"), int) or e["time"] <= 0:
        errors.append("%s: time %r is not a positive integer (ms)"
                      % (where, e.get("time")))
    if get(e, "metadata.version") != req["version"]:
        errors.append("%s: metadata.version %r, schema is %s"
                      % (where, get(e, "metadata.version"), req["version"]))
    if get(e, "metadata.product.name") != "sysgate":
        errors.append("%s: metadata.product.name is not sysgate" % where)
    for p in get(e, "metadata.profiles") or []:
        prof = req["profiles"].get(p)
        if prof is None:
            errors.append("%s: unknown profile %r" % (where, p))
            continue
        for a in prof["required"]:
            if not present(e, a):
                errors.append("%s: profile %s: lacks %s" % (where, p, a))
        for a, values in prof.get("enums", {}).items():
            if a in e and e[a] not in values:
                errors.append("%s: profile %s: %s = %r" % (where, p, a, e[a]))
    walk(req, e, where, errors)
    return errors


def cmd_schema(req_path, events_path):
    with open(req_path, encoding="utf-8") as f:
        req = json.load(f)
    events = load_lines(events_path)
    if not events:
        print("no events")
        return 1
    errors = []
    for n, e in enumerate(events, 1):
        errors += check_event(req, e, "event %d" % n)
    per = Counter(e.get("class_uid") for e in events)
    print("OCSF %s: %d events; per class: %s" % (
        req["version"], len(events),
        ", ".join("%s=%d" % (k, v) for k, v in sorted(per.items()))))
    for msg in errors[:40]:
        print(msg)
    return 1 if errors else 0


def cmd_roundtrip(trail_path, events_path):
    records = load_lines(trail_path)
    events = load_lines(events_path)
    errors = []
    if len(records) != len(events):
        errors.append("%d records, %d events" % (len(records), len(events)))
    for n, (r, e) in enumerate(zip(records, events), 1):
        if e.get("unmapped") != r:
            errors.append("event %d: unmapped is not record %d" % (n, n))
        if get(e, "metadata.sequence") != r.get("seq"):
            errors.append("event %d: metadata.sequence %r, seq %r"
                          % (n, get(e, "metadata.sequence"), r.get("seq")))
        if get(e, "metadata.correlation_uid") != r.get("run"):
            errors.append("event %d: correlation_uid is not the run" % n)
    by_rec = Counter(r.get("type") for r in records)
    by_ev = Counter(get(e, "unmapped.type") for e in events)
    if by_rec != by_ev:
        errors.append("per type: records %s, events %s"
                      % (dict(by_rec), dict(by_ev)))
    print("records per type: %s" % ", ".join(
        "%s=%d" % (k, v) for k, v in sorted(by_rec.items())))
    for msg in errors[:40]:
        print(msg)
    return 1 if errors else 0


def cmd_has(events_path, expr):
    events = load_lines(events_path)
    code = compile(expr, "<expr>", "eval")
    for e in events:
        try:
            if eval(code, {"get": get, "e": e}):
                return 0
        except (KeyError, TypeError, IndexError, AttributeError):
            continue
    print("no event makes true: %s" % expr)
    return 1


def main(argv):
    try:
        if len(argv) == 4 and argv[1] == "schema":
            return cmd_schema(argv[2], argv[3])
        if len(argv) == 4 and argv[1] == "roundtrip":
            return cmd_roundtrip(argv[2], argv[3])
        if len(argv) == 4 and argv[1] == "has":
            return cmd_has(argv[2], argv[3])
    except (OSError, ValueError) as err:
        print("ocsf-check: %s" % err)
        return 1 if isinstance(err, ValueError) else 99
    print(__doc__)
    return 99


if __name__ == "__main__":
    sys.exit(main(sys.argv))
