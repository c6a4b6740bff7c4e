# syntax=docker/dockerfile:1
# rhwp-mcp as an HTTP service: streamable HTTP at :8000/mcp, stateless (any replica answers any
# request), bearer auth from the environment, GET /healthz for probes.
#
#   docker build -t rhwp-mcp .
#   docker run -p 8000:8000 -e RHWP_MCP_AUTH_TOKEN="$(openssl rand -hex 32)" \
#       -v "$PWD/documents:/data:ro" rhwp-mcp
#
# Without RHWP_MCP_AUTH_TOKEN, RHWP_MCP_AUTH_TOKEN_FILE (a mounted secret) or RHWP_MCP_AUTH_PROVIDER
# the server refuses to start (exit status 2): the image listens on every interface, so it never
# serves documents to whoever reaches the port. RHWP_MCP_NO_AUTH=1 only when a proxy in front
# authenticates. Every flag has an RHWP_MCP_* variable (README, "Running as a service"), so the
# command below rarely needs changing; `docker run IMAGE call TOOL key=value` and `IMAGE packs` work too.
#
# tests/test_release_files.py runs this file's install and start steps (the pip commands, ENV,
# ENTRYPOINT + CMD and HEALTHCHECK, read from here) in a fresh venv; CI builds the image itself.

ARG PYTHON_VERSION=3.13
ARG DEBIAN_RELEASE=trixie

# The Rust toolchain comes from the official image of the same Debian release, so its binaries
# and the extension it builds match the runtime's glibc.
FROM rust:1.95-slim-trixie AS rust

# -- build: every distribution as a wheel, then a wheelhouse of their third-party dependencies ---
FROM python:${PYTHON_VERSION}-slim-${DEBIAN_RELEASE} AS build
# A C compiler for the crates with C parts (mimalloc); only in this stage, which is thrown away,
# so Debian's current package of the release is what we want rather than a pinned version.
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends gcc libc6-dev \
    && rm -rf /var/lib/apt/lists/*
COPY --from=rust /usr/local/cargo /usr/local/cargo
COPY --from=rust /usr/local/rustup /usr/local/rustup
ENV CARGO_HOME=/usr/local/cargo RUSTUP_HOME=/usr/local/rustup PATH=/usr/local/cargo/bin:$PATH
WORKDIR /src
COPY . .
# rhwp-core compiled here (abi3: one wheel for every CPython >= 3.10), the host, every pack and the
# meta distribution `rhwp-mcp` as pure wheels: the folders named like the distributions, so a new
# pack folder is picked up without editing this file.
RUN --mount=type=cache,target=/root/.cache/pip \
    --mount=type=cache,target=/usr/local/cargo/registry \
    pip wheel --no-deps --wheel-dir /dist ./rhwp_core ./rhwp_mcp*/
# The dependencies, resolved once here for this Python: the runtime installs offline from /wheels,
# so what the image runs is exactly what was resolved at build time, and our wheels are named as
# files (a same-named release on the index can never be taken instead).
RUN --mount=type=cache,target=/root/.cache/pip \
    pip wheel --wheel-dir /wheels /dist/*.whl

# -- runtime: the installed wheels and nothing else -------------------------------------------------
FROM python:${PYTHON_VERSION}-slim-${DEBIAN_RELEASE} AS runtime
ARG RHWP_MCP_VERSION=0.1.0
LABEL org.opencontainers.image.title="rhwp-mcp" \
      org.opencontainers.image.description="MCP server for Korean HWP/HWPX documents (streamable HTTP, stateless)" \
      org.opencontainers.image.source="https://github.com/rhwp-mcp/rhwp-mcp" \
      org.opencontainers.image.url="https://github.com/rhwp-mcp/rhwp-mcp" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.version="${RHWP_MCP_VERSION}" \
      io.modelcontextprotocol.server.name="io.github.rhwp-mcp/rhwp-mcp"
ENV VIRTUAL_ENV=/opt/rhwp-mcp PATH=/opt/rhwp-mcp/bin:$PATH PYTHONUNBUFFERED=1
# The wheels are bind-mounted from the build stage, so no layer of this image holds them.
RUN --mount=type=bind,from=build,source=/wheels,target=/wheels \
    python -m venv /opt/rhwp-mcp \
    && pip install --no-cache-dir --no-index --find-links /wheels "rhwp-mcp==${RHWP_MCP_VERSION}"
# A system user with group 0 owning the state directory (group-writable): the image also runs
# under an arbitrary UID in group 0, as OpenShift assigns, and the store is then created by that UID.
RUN useradd --system --no-log-init --uid 10001 --gid 0 --home-dir /var/lib/rhwp-mcp --no-create-home \
        --shell /usr/sbin/nologin rhwp \
    && mkdir -p /var/lib/rhwp-mcp /data \
    && chown 10001:0 /var/lib/rhwp-mcp \
    && chmod 0770 /var/lib/rhwp-mcp
# Local files only under /data (mount documents there, read-only); uploads and data: URIs go to
# the store, which replicas can share by mounting one volume at /var/lib/rhwp-mcp.
ENV HOME=/var/lib/rhwp-mcp RHWP_MCP_ROOT=/data RHWP_MCP_STORE_DIR=/var/lib/rhwp-mcp/store
WORKDIR /var/lib/rhwp-mcp
USER 10001
EXPOSE 8000
# No curl in a slim image: the venv's Python asks /healthz (answered without a token).
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD ["python", "-c", "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=4).status != 200)"]
ENTRYPOINT ["rhwp-mcp"]
CMD ["serve", "--transport", "streamable-http", "--host", "0.0.0.0", "--port", "8000", "--stateless"]
