"""Structured data tools on real JSON, YAML and INI files."""

from __future__ import annotations

import json

import pytest
import yaml


def test_json_read_write_and_key_paths(call, tool_ws) -> None:
    (tool_ws / "package.json").write_text(
        '{"name": "x", "scripts": {"test": "jest"}, "l": [1, {"a": 2}]}'
    )
    assert call("read_json", path="package.json", key_path="scripts.test").value == "jest"
    assert call("read_json", path="package.json", key_path="l[1].a").value == 2
    missing = call("read_json", path="package.json", key_path="scripts.build")
    assert not missing.ok and "no key 'build' (keys here: test)" in missing.output
    assert "not an index" in call("read_json", path="package.json", key_path="l.5").output
    assert call("write_json", path="out/data.json", data={"é": [1, None]}).ok
    assert (tool_ws / "out/data.json").read_text() == '{\n  "é": [\n    1,\n    null\n  ]\n}\n'


def test_yaml_read_write(call, tool_ws) -> None:
    (tool_ws / "c.yaml").write_text("server:\n  port: 8080\n  hosts: [a, b]\n")
    assert call("read_yaml", path="c.yaml").value == {"server": {"port": 8080, "hosts": ["a", "b"]}}
    assert call("read_yaml", path="c.yaml", key_path="server.hosts.1").value == "b"
    assert call("write_yaml", path="c.yaml", data={"z": 1, "a": [True]}).ok
    assert (tool_ws / "c.yaml").read_text() == "z: 1\na:\n- true\n"


def test_ini_read_write(call, tool_ws) -> None:
    (tool_ws / "setup.cfg").write_text("[metadata]\nName = demo\n\n[options]\nzip_safe = false\n")
    assert call("read_ini", path="setup.cfg").value == {
        "metadata": {"Name": "demo"},
        "options": {"zip_safe": "false"},
    }
    assert call("read_ini", path="setup.cfg", section="options").value == {"zip_safe": "false"}
    assert "no section 'tool'" in call("read_ini", path="setup.cfg", section="tool").output
    assert call("write_ini", path="t.ini", data={"s": {"K": 1, "flag": True}}).ok
    assert (tool_ws / "t.ini").read_text() == "[s]\nK = 1\nflag = true\n\n"
    bad = call("write_ini", path="t.ini", data={"s": "not a section"})
    assert not bad.ok and "Input should be a valid dictionary" in bad.output


@pytest.mark.parametrize(
    ("name", "text", "key_path", "value", "load"),
    [
        ("a.json", '{"a": {"b": 1}}', "a.c.d", 5, json.loads),
        ("a.yaml", "a:\n  b: 1\n", "a.b", [1, 2], yaml.safe_load),
        ("a.yml", "", "x.y", "z", yaml.safe_load),
    ],
)
def test_set_value_at_path(call, tool_ws, name, text, key_path, value, load) -> None:
    (tool_ws / name).write_text(text)
    assert call("set_value_at_path", path=name, key_path=key_path, value=value).ok
    data = load((tool_ws / name).read_text())
    node = data
    for part in key_path.split("."):
        node = node[part]
    assert node == value


def test_set_value_in_ini_and_lists(call, tool_ws) -> None:
    (tool_ws / "tox.ini").write_text("[tox]\nenvlist = py311\n")
    assert call("set_value_at_path", path="tox.ini", key_path="pytest.addopts", value="-q").ok
    assert "[pytest]\naddopts = -q" in (tool_ws / "tox.ini").read_text()
    assert "section.key" in call("set_value_at_path", path="tox.ini", key_path="a", value=1).output
    (tool_ws / "l.json").write_text('{"items": [1]}')
    assert call("set_value_at_path", path="l.json", key_path="items.1", value=2).ok
    assert call("set_value_at_path", path="l.json", key_path="items.0", value=0).ok
    assert json.loads((tool_ws / "l.json").read_text()) == {"items": [0, 2]}
    assert "not an index" in call("set_value_at_path", path="l.json", key_path="items.7",
                                  value=1).output  # fmt: skip
    assert (
        "unknown format" in call("set_value_at_path", path="a.toml", key_path="a", value=1).output
    )


@pytest.mark.parametrize(
    ("tool", "name", "text", "expected"),
    [
        ("read_json", "b.json", '{"a": }', "invalid JSON at line 1"),
        ("read_yaml", "b.yaml", "a: [1, 2\n", "invalid YAML"),
        ("read_ini", "b.ini", "no section header\n", "invalid INI"),
        ("read_json", "b.json", None, "no such file"),
    ],
)
def test_parse_errors_are_error_results(call, tool_ws, tool, name, text, expected) -> None:
    if text is not None:
        (tool_ws / name).write_text(text)
    result = call(tool, path=name)
    assert not result.ok and expected in result.output


def test_bad_key_paths(call, tool_ws) -> None:
    (tool_ws / "a.json").write_text('{"a": 1}')
    assert "invalid key path" in call("read_json", path="a.json", key_path="a..b").output
    assert "cannot go into 'b' of a int" in call("read_json", path="a.json", key_path="a.b").output


def test_a_yaml_bomb_is_refused_not_expanded(call, tool_ws) -> None:
    levels = ["a0: &a0 [" + ", ".join(["lol"] * 9) + "]"]
    levels += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 6)]
    (tool_ws / "bomb.yaml").write_text("\n".join(levels) + "\n")  # 9**6 values
    result = call("read_yaml", path="bomb.yaml")
    assert not result.ok and "expands to more than 10,000 values" in result.output
    deep = call("set_value_at_path", path="bomb.yaml", key_path="a0", value=1)
    assert not deep.ok and "expands to more than" in deep.output
