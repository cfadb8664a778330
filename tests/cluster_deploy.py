#!/usr/bin/env python3
"""Checks deploy/cluster (compose.yaml and k8s/) against the binary and the
Dockerfile, and runs what they describe, since neither Docker Compose nor a
Kubernetes cluster runs here.

Statically: every file parses, and the kustomization lists every manifest;
every flag and environment variable given to panecast is one `panecast serve
--help` documents; images, the command, ports, the listen address and the
health check agree with the Dockerfile; NATS gets JetStream with its store
on a volume (a named volume, a volumeClaimTemplate), and runs with -c
naming deploy/cluster/nats.conf (mounted read-only; in Kubernetes a
ConfigMap whose text is that file's) and with the public key nats.conf
reads from the environment (PANECAST_NATS_NKEY: from an env file git
ignores, from a Secret); the nodes name NATS by its service and port, have
distinct node names (the pod's name through the downward API in
Kubernetes) and distinct host ports, share one token (an env file, a
Secret) and one configuration, whose [cluster] key_file and nkey_seed_file
are where the bus key and the NATS seed are mounted (compose's secrets at
/run/secrets/NAME, from files git ignores; the Secret's volume and items,
the Secret NATS's public key comes from); the pods are non-root, read-only,
without capabilities.

Then, for the compose file and then for the Kubernetes manifests: a fresh
bus key (`panecast key`) and NATS user (`panecast key --nats`) are made; a
real nats-server runs with the arguments the manifest gives it
(deploy/cluster/nats.conf for its -c, its store in a temporary directory,
on a free loopback port) and the user's public key in its environment, and
must refuse a client that is not that user; three panecast processes run
with the environment and arguments the manifest gives each node (the token
from the env file or Secret, the configuration from the file or ConfigMap
with key_file and nkey_seed_file mapped to the key and the seed written as
the manifest leaves them: 0600 for compose; root's, the Secret volume's
mode and the pod's fsGroup for Kubernetes; addresses mapped to loopback and
free ports). Each must pass its health check (`panecast health` for
compose, the probes for Kubernetes); a session created on node 1 must be
listed by nodes 2 and 3 with node 1's name as its "node", and gone from
every list once deleted; each node must stop with exit code 0 within the
stop grace on SIGTERM, without logging the token, the key or the seed.
Every process is killed at the end, on failure too.

Usage: python3 tests/cluster_deploy.py   (PANECAST_BIN: the binary, default
target/debug/panecast; nats-server from Debian, installed when missing).
Installs PyYAML from PyPI when it is missing.
"""

import atexit
import json
import os
import posixpath
import random
import re
import shutil
import signal
import socket
import string
import subprocess
import sys
import tempfile
import time
import tomllib
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

from quiet_port import quiet_port

ROOT = Path(__file__).resolve().parent.parent
CLUSTER = ROOT / "deploy" / "cluster"
K8S = CLUSTER / "k8s"
# NATS's configuration, as compose.yaml mounts it and k8s/'s ConfigMap holds it.
NATS_CONF = CLUSTER / "nats.conf"
BIN = os.environ.get("PANECAST_BIN", str(ROOT / "target" / "debug" / "panecast"))
# How long a node may take to listen, and a session to reach every list.
DEADLINE = 20.0
# NATS's client port when its arguments name none.
NATS_DEFAULT_PORT = 4222
# The capabilities the Docker docs give the container (README, Docker).
DOCKER_CAPS = {"CHOWN", "DAC_OVERRIDE", "FOWNER", "KILL", "SETGID", "SETUID"}

try:
    import yaml
except ImportError:
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "pyyaml"], check=True)
    import yaml

checks = 0
# Every process this test starts, killed at exit whatever happens.
processes = []


def check(condition, message):
    """Counts a check; stops with the message when it fails."""
    global checks
    checks += 1
    if not condition:
        sys.exit(f"cluster_deploy.py: FAILED: {message}")


def kill_all():
    for process in processes:
        if process.poll() is None:
            process.kill()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass


atexit.register(kill_all)
for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
    signal.signal(sig, lambda number, frame: sys.exit(f"cluster_deploy.py: stopped by signal {number}"))


# --- the files -----------------------------------------------------------------


def load_compose():
    path = CLUSTER / "compose.yaml"
    compose = yaml.safe_load(path.read_text())
    check(isinstance(compose, dict) and isinstance(compose.get("services"), dict),
          "compose.yaml: no services")
    return compose


def load_k8s():
    """Every document of every manifest, by (kind, name)."""
    docs = {}
    for path in sorted(K8S.glob("*.yaml")):
        for doc in yaml.safe_load_all(path.read_text()):
            check(isinstance(doc, dict), f"k8s/{path.name}: a document is not a mapping")
            for key in ("apiVersion", "kind"):
                check(key in doc, f"k8s/{path.name}: no {key}")
            name = doc.get("metadata", {}).get("name")
            if doc["kind"] != "Kustomization":
                check(name, f"k8s/{path.name}: no metadata.name")
            check((doc["kind"], name) not in docs, f"two {doc['kind']} {name} documents")
            docs[(doc["kind"], name)] = doc
    (kustomization,) = [d for (kind, _), d in docs.items() if kind == "Kustomization"]
    listed = kustomization["resources"]
    files = sorted(p.name for p in K8S.glob("*.yaml") if p.name != "kustomization.yaml")
    check(sorted(listed) == files, f"k8s kustomization lists {listed}, the folder has {files}")
    if shutil.which("kubectl"):
        # When kubectl is here, its kustomize builds the same objects.
        built = subprocess.run(["kubectl", "kustomize", str(K8S)], capture_output=True, text=True)
        check(built.returncode == 0, f"kubectl kustomize {K8S}: {built.stderr}")
        objects = {(d["kind"], d["metadata"]["name"]) for d in yaml.safe_load_all(built.stdout) if d}
        check(objects == {key for key in docs if key[0] != "Kustomization"},
              f"kubectl kustomize builds {sorted(objects)}")
    return docs


def one(docs, kind):
    found = [d for (k, _), d in docs.items() if k == kind]
    check(len(found) == 1, f"k8s: one {kind}, not {len(found)}")
    return found[0]


def by_name(docs, kind, name):
    check((kind, name) in docs, f"k8s: no {kind} named {name}")
    return docs[(kind, name)]


def dockerfile():
    """The runtime stage's EXPOSE, image title, CMD, HEALTHCHECK and listen address."""
    text = (ROOT / "Dockerfile").read_text()
    expose = re.findall(r"^EXPOSE (\d+)$", text, re.M)
    title = re.findall(r'org\.opencontainers\.image\.title="([^"]+)"', text)
    cmd = re.findall(r"^CMD (\[.*\])$", text, re.M)
    health = re.search(r"^HEALTHCHECK (.*?)\\\n\s*CMD (\[.*\])$", text, re.M)
    listen = re.findall(r"PANECAST_LISTEN=(\S+)", text)
    check(len(expose) == 1 and len(title) == 1 and len(cmd) == 1 and health and len(listen) == 1,
          "the Dockerfile has one EXPOSE, image title, CMD, HEALTHCHECK and PANECAST_LISTEN")
    options = dict(re.findall(r"--([a-z-]+)=(\S+)", health.group(1)))
    return {
        "expose": int(expose[0]),
        "title": title[0],
        "cmd": json.loads(cmd[0]),
        "health_cmd": json.loads(health.group(2)),
        "health_options": options,
        "listen": listen[0],
    }


def image_is(image, title):
    return image.rsplit(":", 1)[0].rsplit("/", 1)[-1] == title


def nats_port(args):
    """The client port nats-server listens on with these arguments (and nats.conf, which -c names)."""
    for flag in ("-p", "--port"):
        if flag in args:
            return int(args[args.index(flag) + 1])
    ports = re.findall(r"^\s*port\s*[:=]\s*(\d+)\s*$", NATS_CONF.read_text(), re.M)
    return int(ports[-1]) if ports else NATS_DEFAULT_PORT


def check_nats_args(args, where):
    check("-js" in args or "--jetstream" in args, f"{where}: NATS runs without JetStream (-js)")
    check("-sd" in args, f"{where}: NATS has no JetStream store directory (-sd)")
    return args[args.index("-sd") + 1]


def nats_config_path(args, where):
    """Where NATS's arguments (-c) say its configuration is."""
    flags = [a for a in args if a in ("-c", "--config")]
    check(len(flags) == 1, f"{where}: NATS runs without its configuration (-c)")
    return args[args.index(flags[0]) + 1]


def nats_nkey_variable():
    """The environment variable nats.conf reads its one user's public key from."""
    found = re.findall(r"^\s*nkey\s*[:=]\s*\$(\w+)\s*$", NATS_CONF.read_text(), re.M)
    check(len(found) == 1, "deploy/cluster/nats.conf: not one user whose nkey is read from the environment ($NAME)")
    return found[0]


def gitignored(name):
    """Whether deploy/cluster/.gitignore lists the file `name` (relative to deploy/cluster)."""
    return posixpath.normpath(name) in (CLUSTER / ".gitignore").read_text().split()


def volume_item(source, file_name):
    """The key of a configMap or secret volume source that appears as file_name, and its item."""
    if "items" not in source:
        return file_name, {}
    items = [i for i in source["items"] if i["path"] == file_name]
    return (items[0]["key"], items[0]) if items else (None, {})


def check_panecast_options(help_text, args, env_names, where):
    for flag in [a for a in args if a.startswith("--")]:
        check(re.search(rf"\s{re.escape(flag)}\b", help_text), f"{where}: {flag} is not an option of serve")
    for name in env_names:
        check(f"[env: {name}" in help_text, f"{where}: {name} is not an environment variable of serve")


def check_cluster_url(url, nats_service, port, where):
    parsed = urllib.parse.urlsplit(url)
    check(parsed.scheme == "nats", f"{where}: PANECAST_CLUSTER {url} is not a nats:// URL")
    check(parsed.hostname == nats_service, f"{where}: PANECAST_CLUSTER {url} does not name NATS ({nats_service})")
    check((parsed.port or NATS_DEFAULT_PORT) == port, f"{where}: PANECAST_CLUSTER {url} is not NATS's port {port}")


def check_config(text, where):
    config = tomllib.loads(text)
    ttl = config.get("cluster", {}).get("node_ttl_s", 15)
    check(1 <= ttl <= 300, f"{where}: cluster.node_ttl_s {ttl} is outside 1-300")
    return config


def read_env_file(path):
    values = {}
    for line in Path(path).read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            name, _, value = line.partition("=")
            values[name.strip()] = value.strip()
    return values


def random_token():
    return "".join(random.choice(string.ascii_lowercase + string.digits) for _ in range(32))


def make_keys():
    """A bus key (`panecast key`) and a NATS user (`panecast key --nats`), as the deploy files make them."""
    outputs = []
    for args in ([], ["--nats"]):
        result = subprocess.run([BIN, "key"] + args, capture_output=True, text=True, timeout=30)
        check(result.returncode == 0, f"panecast key {' '.join(args)} exits {result.returncode}: {result.stderr}")
        outputs.append(result.stdout)
    key = re.findall(r"^secret: (\S+)$", outputs[0], re.M)
    seed = re.findall(r"^seed: (SU\w+)$", outputs[1], re.M)
    public = re.findall(r"^public key: (U\w+)$", outputs[1], re.M)
    check(len(key) == 1 and len(seed) == 1 and len(public) == 1,
          f"panecast key and key --nats print no secret: / seed: and public key: lines:\n{''.join(outputs)}")
    return {"key": key[0], "seed": seed[0], "public": public[0]}


def compose_plan(compose, docker, help_text):
    """Checks compose.yaml; returns what to run: NATS's args and each node's."""
    services = compose["services"]
    check("nats" in services, "compose.yaml: no nats service")
    nats = services["nats"]
    check(nats["image"].split(":")[0] == "nats" and nats["image"].split(":")[1].startswith("2.10"),
          f"compose.yaml: NATS image {nats['image']} is not nats:2.10")
    nats_args = nats["command"]
    store = check_nats_args(nats_args, "compose.yaml")
    volumes = compose.get("volumes") or {}
    mounts = [v.split(":") for v in nats.get("volumes", [])]
    check(any(len(m) >= 2 and m[1] == store and m[0] in volumes for m in mounts),
          f"compose.yaml: NATS's store {store} is not on a named volume")
    check(not nats.get("ports"), "compose.yaml: NATS's port is published (the nodes reach it on the compose network)")
    port = nats_port(nats_args)
    # Its configuration: deploy/cluster/nats.conf, mounted read-only where -c names it.
    conf_path = nats_config_path(nats_args, "compose.yaml")
    conf_sources = [m for m in mounts if len(m) >= 2 and m[1] == conf_path]
    check(len(conf_sources) == 1 and conf_sources[0][2:] == ["ro"]
          and (CLUSTER / conf_sources[0][0]).resolve() == NATS_CONF.resolve(),
          f"compose.yaml: NATS's {conf_path} is not deploy/cluster/nats.conf mounted read-only")
    # The nodes' public key, which nats.conf reads from the environment: from
    # the operator's env file (never committed), not the compose file.
    nkey_variable = nats_nkey_variable()
    check(nkey_variable not in (nats.get("environment") or {}), f"compose.yaml: {nkey_variable} is written in the compose file")
    nats_env_files = [f if isinstance(f, str) else f["path"] for f in nats.get("env_file", [])]
    check(len(nats_env_files) == 1 and gitignored(nats_env_files[0]),
          f"compose.yaml: NATS gets {nkey_variable} from no env file in deploy/cluster/.gitignore ({nats_env_files})")

    nodes = {name: s for name, s in services.items() if name != "nats"}
    check(len(nodes) == 3, f"compose.yaml: three panecast nodes, not {sorted(nodes)}")
    env_files, host_ports, node_names, configs, node_secrets = set(), set(), set(), set(), set()
    plan = []
    for name, service in nodes.items():
        where = f"compose.yaml: {name}"
        check(image_is(service["image"], docker["title"]), f"{where}: image {service['image']} is not the Dockerfile's")
        args = service.get("command", docker["cmd"])
        check(args == docker["cmd"], f"{where}: runs {args}, not the image's CMD {docker['cmd']}")
        env = {k: str(v) for k, v in service.get("environment", {}).items()}
        check("PANECAST_TOKEN" not in env, f"{where}: the token is written in the compose file")
        check_panecast_options(help_text, args, env, where)
        check_cluster_url(env.get("PANECAST_CLUSTER", ""), "nats", port, where)
        check("nats" in service.get("depends_on", {}), f"{where}: does not depend on nats")
        node_names.add(env.get("PANECAST_NODE"))
        listen = env.get("PANECAST_LISTEN", docker["listen"])
        check(listen.endswith(f":{docker['expose']}"), f"{where}: listens on {listen}, not on EXPOSE {docker['expose']}")
        (published,) = service["ports"]
        host_ip, host_port, container_port = published.split(":")
        check(int(container_port) == docker["expose"], f"{where}: publishes {container_port}, not EXPOSE {docker['expose']}")
        check(host_ip == "127.0.0.1", f"{where}: published on {host_ip}, not on loopback")
        host_ports.add(host_port)
        health = service["healthcheck"]
        check(health["test"] == ["CMD"] + docker["health_cmd"],
              f"{where}: healthcheck {health['test']} is not the Dockerfile's {docker['health_cmd']}")
        for option in ("interval", "timeout", "start-period", "retries"):
            check(str(health[option.replace("-", "_")]) == docker["health_options"][option],
                  f"{where}: healthcheck {option} is not the Dockerfile's")
        check(service.get("cap_drop") == ["ALL"] and set(service.get("cap_add", [])) == DOCKER_CAPS,
              f"{where}: capabilities are not the Docker docs' {sorted(DOCKER_CAPS)}")
        env_file = service["env_file"]
        env_files.add(json.dumps(env_file))
        # The configuration: a file next to compose.yaml, where PANECAST_CONFIG names it.
        config_path = env.get("PANECAST_CONFIG")
        check(config_path, f"{where}: no PANECAST_CONFIG")
        sources = [v.split(":") for v in service.get("volumes", []) if v.split(":")[1] == config_path]
        check(len(sources) == 1 and sources[0][2:] == ["ro"], f"{where}: {config_path} is not mounted read-only")
        host_config = (CLUSTER / sources[0][0]).resolve()
        check(host_config.is_file(), f"{where}: {host_config} does not exist")
        configs.add(host_config)
        # Its secrets, by where compose mounts them.
        secrets = {}
        for secret in service.get("secrets", []):
            source = secret if isinstance(secret, str) else secret["source"]
            target = source if isinstance(secret, str) else secret.get("target", source)
            secrets[target if target.startswith("/") else f"/run/secrets/{target}"] = source
        node_secrets.add(json.dumps(secrets, sort_keys=True))
        grace = service.get("stop_grace_period", "10s")
        check(grace.endswith("s"), f"{where}: stop_grace_period {grace} in seconds")
        plan.append({"name": env.get("PANECAST_NODE"), "args": args, "env": env, "config": (config_path, host_config.read_text()),
                     "grace": float(grace[:-1]), "health": health["test"][1:]})
    check(None not in node_names and len(node_names) == 3, f"compose.yaml: node names {node_names} are not three")
    check(len(host_ports) == 3, "compose.yaml: the nodes share a host port")
    check(len(env_files) == 1, "compose.yaml: the nodes do not share one env file")
    check(len(configs) == 1, "compose.yaml: the nodes do not share one configuration")
    check(len(node_secrets) == 1, "compose.yaml: the nodes do not get the same secrets")
    (config_file,) = configs
    config = check_config(config_file.read_text(), "deploy/cluster/panecast.toml")
    # The bus key and the NATS seed: files of the operator's (never
    # committed), mounted as secrets where the configuration reads them.
    secrets = json.loads(node_secrets.pop())
    files = []
    for option, holds in (("key_file", "key"), ("nkey_seed_file", "seed")):
        path = config.get("cluster", {}).get(option)
        check(path in secrets, f"deploy/cluster/panecast.toml: [cluster] {option} {path} is not a secret of the nodes' "
              f"({sorted(secrets)})")
        name = secrets[path]
        file = ((compose.get("secrets") or {}).get(name) or {}).get("file")
        check(file and gitignored(file), f"compose.yaml: secret {name}'s file {file} is not in deploy/cluster/.gitignore")
        # Made with umask 077 (compose.yaml's first lines), bind-mounted as it is.
        files.append({"path": path, "local": posixpath.normpath(file), "holds": holds, "mode": 0o600, "owner": None})
    check(config.get("limits", {}).get("grace_ms", 2000) / 1000 + 3 < min(p["grace"] for p in plan),
          "compose.yaml: stop_grace_period is not above the kill grace and the drain")
    # The env file is the operator's (never committed): this run writes one.
    (env_file_name,) = [f if isinstance(f, str) else f["path"] for f in json.loads(env_files.pop())]
    check(env_file_name in (CLUSTER / ".gitignore").read_text().split(),
          f"compose.yaml: the token's env file {env_file_name} is not in deploy/cluster/.gitignore")
    return {"nats_args": nats_args, "store": store, "nats_port": port, "nats_conf": conf_path, "nodes": plan,
            "env_file": env_file_name, "public_name": None, "nats_env_file": nats_env_files[0],
            "nkey_variable": nkey_variable, "files": files}


def pod_security(pod, container, where):
    pod_security, security = pod["securityContext"], container["securityContext"]
    check(pod_security["runAsNonRoot"] is True and pod_security["runAsUser"] != 0, f"{where}: not non-root")
    check(security["readOnlyRootFilesystem"] is True, f"{where}: root filesystem not read-only")
    check(security["capabilities"]["drop"] == ["ALL"], f"{where}: capabilities not all dropped")
    check(security["allowPrivilegeEscalation"] is False, f"{where}: privilege escalation allowed")
    check(pod.get("automountServiceAccountToken") is False, f"{where}: mounts a service account token")
    for kind in ("requests", "limits"):
        check({"cpu", "memory"} <= container["resources"][kind].keys(), f"{where}: no cpu and memory {kind}")


def k8s_plan(docs, docker, help_text):
    """Checks k8s/; returns what to run."""
    nats_set = one(docs, "StatefulSet")
    deployment = one(docs, "Deployment")

    # NATS: JetStream on the claimed volume, behind its governing Service.
    nats_pod = nats_set["spec"]["template"]["spec"]
    (nats,) = nats_pod["containers"]
    check(nats["image"].split(":")[0] == "nats" and nats["image"].split(":")[1].startswith("2.10"),
          f"k8s: NATS image {nats['image']} is not nats:2.10")
    nats_args = nats["args"]
    store = check_nats_args(nats_args, "k8s StatefulSet")
    claims = {c["metadata"]["name"] for c in nats_set["spec"]["volumeClaimTemplates"]}
    nats_mounts = {m["mountPath"]: m["name"] for m in nats["volumeMounts"]}
    check(nats_mounts.get(store) in claims, f"k8s: NATS's store {store} is not on a volumeClaimTemplate")
    port = nats_port(nats_args)
    nats_ports = {p["name"]: p["containerPort"] for p in nats["ports"]}
    check(list(nats_ports.values()) == [port], f"k8s: NATS's containerPort {nats_ports} is not its port {port}")
    nats_service = by_name(docs, "Service", nats_set["spec"]["serviceName"])
    nats_labels = nats_set["spec"]["template"]["metadata"]["labels"]
    check(nats_set["spec"]["selector"]["matchLabels"].items() <= nats_labels.items(), "k8s: the StatefulSet's selector")
    check(nats_service["spec"]["selector"].items() <= nats_labels.items(), "k8s: NATS's Service does not select NATS")
    (nats_service_port,) = nats_service["spec"]["ports"]
    check(nats_service_port["targetPort"] in nats_ports, "k8s: NATS's Service targetPort is not a container port")
    pod_security(nats_pod, nats, "k8s StatefulSet")
    check(nats_pod["securityContext"].get("fsGroup"), "k8s: NATS's volume is not writable by its non-root user (fsGroup)")
    # Its configuration: deploy/cluster/nats.conf as it is, from a ConfigMap
    # mounted at the directory -c names.
    conf_path = nats_config_path(nats_args, "k8s StatefulSet")
    nats_volumes = {v["name"]: v for v in nats_pod.get("volumes", [])}
    conf_volume = nats_volumes.get(nats_mounts.get(posixpath.dirname(conf_path)), {})
    check("configMap" in conf_volume, f"k8s: NATS's {conf_path} is not in a ConfigMap mounted at {posixpath.dirname(conf_path)}")
    nats_configmap = by_name(docs, "ConfigMap", conf_volume["configMap"]["name"])
    conf_key, _ = volume_item(conf_volume["configMap"], posixpath.basename(conf_path))
    check(nats_configmap.get("data", {}).get(conf_key) == NATS_CONF.read_text(),
          f"k8s: ConfigMap {nats_configmap['metadata']['name']}'s {conf_key} is not deploy/cluster/nats.conf")
    # The nodes' public key, which nats.conf reads from the environment: from a Secret.
    nkey_variable = nats_nkey_variable()
    nats_env = {e["name"]: e for e in nats.get("env", [])}
    nkey_ref = nats_env.get(nkey_variable, {}).get("valueFrom", {}).get("secretKeyRef", {})
    check(nkey_ref.get("name") and nkey_ref.get("key"), f"k8s: NATS does not get {nkey_variable} from a Secret")

    # panecast: three replicas, a node each.
    check(deployment["spec"]["replicas"] == 3, "k8s: the Deployment does not run three nodes")
    pod = deployment["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    check(deployment["spec"]["selector"]["matchLabels"].items() <= labels.items(), "k8s: the Deployment's selector")
    check(not (nats_service["spec"]["selector"].items() <= labels.items()), "k8s: NATS's Service selects panecast")
    services = [d for (k, n), d in docs.items() if k == "Service" and n != nats_service["metadata"]["name"]]
    check(len(services) == 1, "k8s: one Service for panecast")
    (service,) = services
    check(service["spec"]["selector"].items() <= labels.items(), "k8s: the Service does not select the nodes")
    check(not (service["spec"]["selector"].items() <= nats_labels.items()), "k8s: panecast's Service selects NATS")
    check(image_is(container["image"], docker["title"]), f"k8s: image {container['image']} is not the Dockerfile's")
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    check(list(ports.values()) == [docker["expose"]], f"k8s: containerPort {ports} is not EXPOSE {docker['expose']}")
    for service_port in service["spec"]["ports"]:
        check(service_port["targetPort"] in ports, "k8s: the Service's targetPort is not a container port")
    env = {e["name"]: e for e in container["env"]}
    args = container["args"]
    check(args[0] == "serve", "k8s: the container does not run serve")
    check_panecast_options(help_text, args, env, "k8s Deployment")
    listen = env["PANECAST_LISTEN"]["value"]
    check(listen.endswith(f":{docker['expose']}"), f"k8s: listens on {listen}, not EXPOSE {docker['expose']}")
    check_cluster_url(env["PANECAST_CLUSTER"]["value"], nats_service["metadata"]["name"], nats_service_port["port"],
                      "k8s Deployment")
    check(env["PANECAST_NODE"].get("valueFrom", {}).get("fieldRef", {}).get("fieldPath") == "metadata.name",
          "k8s: PANECAST_NODE is not the pod's name (downward API)")
    token_ref = env["PANECAST_TOKEN"]["valueFrom"]["secretKeyRef"]
    secret = by_name(docs, "Secret", token_ref["name"])
    check(token_ref["key"] in secret.get("stringData", {}), "k8s: the token is not the Secret's")
    pod_security(pod, container, "k8s Deployment")
    volumes = {v["name"]: v for v in pod["volumes"]}
    mounts = {m["mountPath"]: m["name"] for m in container["volumeMounts"]}
    check("/tmp" in mounts and "emptyDir" in volumes[mounts["/tmp"]], "k8s: no emptyDir at /tmp")
    config_path = Path(args[args.index("--config") + 1])
    config_volume = volumes[mounts[str(config_path.parent)]]
    check("configMap" in config_volume, "k8s: --config is not in a ConfigMap")
    configmap = by_name(docs, "ConfigMap", config_volume["configMap"]["name"])
    config_text = configmap["data"][volume_item(config_volume["configMap"], config_path.name)[0]]
    config = check_config(config_text, "k8s ConfigMap")
    # The bus key and the NATS seed: in one Secret, mounted where the
    # configuration reads them; NATS's public key from the same Secret.
    fs_group = pod["securityContext"].get("fsGroup")
    files, keys_secrets, secret_values = [], set(), {}
    for option, holds in (("key_file", "key"), ("nkey_seed_file", "seed")):
        path = config.get("cluster", {}).get(option)
        check(path, f"k8s ConfigMap: no [cluster] {option}")
        volume = volumes.get(mounts.get(posixpath.dirname(path)), {})
        check("secret" in volume, f"k8s: [cluster] {option} {path} is not in a Secret mounted at {posixpath.dirname(path)}")
        key, item = volume_item(volume["secret"], posixpath.basename(path))
        check(key, f"k8s: [cluster] {option} {path}: no item of volume {volume['name']} is {posixpath.basename(path)}")
        keys_secret = by_name(docs, "Secret", volume["secret"]["secretName"])
        check(key in keys_secret.get("stringData", {}),
              f"k8s: [cluster] {option} {path} is no key of Secret {keys_secret['metadata']['name']}")
        keys_secrets.add(keys_secret["metadata"]["name"])
        check(key not in secret_values, f"k8s: [cluster] {option} is the Secret's {key}, as {secret_values.get(key)} is")
        secret_values[key] = f"[cluster] {option}"
        # As the kubelet writes a secret volume: root's, the item's mode or
        # the volume's defaultMode, and with an fsGroup, its group, which may read.
        mode = item.get("mode", volume["secret"].get("defaultMode", 0o644))
        owner = (0, fs_group if fs_group is not None else 0)
        if fs_group is not None:
            mode |= 0o440
        files.append({"path": path, "local": f"{volume['name']}/{posixpath.basename(path)}", "holds": holds,
                      "mode": mode, "owner": owner})
    check(len(keys_secrets) == 1, f"k8s: the bus key and the NATS seed are in different Secrets {sorted(keys_secrets)}")
    (keys_secret_name,) = keys_secrets
    check(nkey_ref["name"] == keys_secret_name,
          f"k8s: NATS's {nkey_variable} is from Secret {nkey_ref['name']}, not the nodes' seed's ({keys_secret_name})")
    keys_secret = by_name(docs, "Secret", keys_secret_name)
    check(nkey_ref["key"] in keys_secret.get("stringData", {}), f"k8s: Secret {keys_secret_name} has no {nkey_ref['key']}")
    check(nkey_ref["key"] not in secret_values,
          f"k8s: NATS's {nkey_variable} is the Secret's {nkey_ref['key']}, the nodes' {secret_values.get(nkey_ref['key'])}")
    grace = pod["terminationGracePeriodSeconds"]
    check(grace > config.get("limits", {}).get("grace_ms", 2000) / 1000 + 3,
          "k8s: terminationGracePeriodSeconds is not above the kill grace and the drain")
    service_name = service["metadata"]["name"]
    check(service_name in config.get("public_names", []),
          f"k8s: the Service's name {service_name} is not in public_names (clients using it would get 421)")
    probes = [container[p]["httpGet"] for p in ("readinessProbe", "livenessProbe")]
    for probe in probes:
        check(probe["port"] in ports, "k8s: a probe's port is not a container port")

    # Pod names as a ReplicaSet makes them: the node names.
    alphabet = "bcdfghjklmnpqrstvwxz2456789"
    template_hash = "".join(random.choice(alphabet) for _ in range(10))
    plan = []
    for _ in range(3):
        pod_name = f"{deployment['metadata']['name']}-{template_hash}-{''.join(random.choice(alphabet) for _ in range(5))}"
        node_env = {name: e["value"] for name, e in env.items() if "value" in e}
        node_env["PANECAST_NODE"] = pod_name
        node_env["PANECAST_TOKEN"] = secret["stringData"][token_ref["key"]]
        plan.append({"name": pod_name, "args": args, "env": node_env, "config": (str(config_path), config_text),
                     "grace": float(grace), "probes": [p["path"] for p in probes],
                     "user": (pod["securityContext"]["runAsUser"], pod["securityContext"]["runAsGroup"])})
    return {"nats_args": nats_args, "store": store, "nats_port": port, "nats_conf": conf_path, "nodes": plan,
            "env_file": None, "public_name": service_name, "nats_env_file": None, "nkey_variable": nkey_variable,
            "files": files}


# --- running them ---------------------------------------------------------------


def request(method, url, token=None, body=None, host=None):
    """The status and the JSON body (or None) of a request."""
    req = urllib.request.Request(url, method=method, data=None if body is None else json.dumps(body).encode())
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    if body is not None:
        req.add_header("Content-Type", "application/json")
    if host:
        req.add_header("Host", host)
    try:
        with urllib.request.urlopen(req, timeout=10) as response:
            status, text = response.status, response.read()
    except urllib.error.HTTPError as e:
        status, text = e.code, e.read()
    try:
        return status, json.loads(text)
    except ValueError:
        return status, None


def nats_server():
    found = shutil.which("nats-server") or ("/usr/sbin/nats-server" if Path("/usr/sbin/nats-server").exists() else None)
    if found:
        return found
    sudo = [] if os.getuid() == 0 else ["sudo"]
    subprocess.run(sudo + ["apt-get", "update", "-qq"], check=True)
    subprocess.run(sudo + ["apt-get", "install", "-y", "-qq", "nats-server"], check=True,
                   env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"}, stdout=subprocess.DEVNULL)
    found = shutil.which("nats-server") or "/usr/sbin/nats-server"
    check(Path(found).exists(), "nats-server is not installed and apt-get could not install it")
    return found


def log_tail(path, lines=15):
    text = Path(path).read_text(errors="replace") if Path(path).exists() else ""
    return "\n".join(text.splitlines()[-lines:])


def start_nats(plan, work, nats_env):
    """nats-server with the manifest's arguments and environment: deploy/cluster/nats.conf where
    they name the mounted one, its store in work/, on a free loopback port."""
    args = list(plan["nats_args"])
    store = work / "nats-store"
    store.mkdir()
    args[args.index("-sd") + 1] = str(store)
    for i, arg in enumerate(args[:-1]):
        if arg in ("-c", "--config") and args[i + 1] == plan["nats_conf"]:
            args[i + 1] = str(NATS_CONF)
    for flag in ("-p", "--port", "-a", "--addr"):
        if flag in args:
            i = args.index(flag)
            del args[i:i + 2]
    port = quiet_port()
    log = work / "nats.log"
    env = {k: v for k, v in os.environ.items() if k != plan["nkey_variable"]}
    env.update(nats_env)
    with open(log, "w") as out:
        process = subprocess.Popen([nats_server()] + args + ["-a", "127.0.0.1", "-p", str(port)], env=env,
                                   stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    processes.append(process)
    started = time.monotonic()
    while True:
        check(process.poll() is None, f"nats-server {' '.join(args)} exited {process.returncode}:\n{log_tail(log)}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            check(time.monotonic() - started < DEADLINE, f"nats-server did not listen within {DEADLINE} s")
            time.sleep(0.05)
    return process, port


def check_bus_closed(label, port):
    """NATS refuses a client that is not the nodes' user, as nats.conf means it to."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        replies = sock.makefile("rb")
        info = replies.readline()
        check(info.startswith(b"INFO ") and json.loads(info[5:]).get("auth_required") is True,
              f"{label}: NATS lets in clients without a user: {info!r}")
        sock.sendall(b'CONNECT {"verbose":false,"pedantic":false,"protocol":1}\r\nPING\r\n')
        reply = replies.readline()
        check(b"Authorization Violation" in reply,
              f"{label}: NATS answers a client without a user {reply!r}, not Authorization Violation")


def write_secret_files(plan, work, keys):
    """The bus key and the NATS seed in work/, as the operator's files (compose) or the kubelet's
    secret volume (k8s) are; returns each file's local path by the path the manifest mounts it at."""
    local = {}
    for file in plan["files"]:
        path = work / file["local"]
        if not path.parent.exists():
            path.parent.mkdir()
            if file["owner"] and os.getuid() == 0:
                os.chown(path.parent, *file["owner"])
                path.parent.chmod(0o2750)
        path.write_text(keys[file["holds"]] + "\n")
        path.chmod(file["mode"])
        if file["owner"] and os.getuid() == 0:
            os.chown(path, *file["owner"])
        local[file["path"]] = path
    return local


def start_node(index, node, plan, work, port):
    """One panecast process as the manifest starts the node, on loopback."""
    node_dir = work / f"node-{index}"
    node_dir.mkdir(mode=0o755)
    node_dir.chmod(0o755)
    config_path, config_text = node["config"]
    config = tomllib.loads(config_text)
    # Sessions' homes: one directory for the three (they share the uid range
    # on this machine, and its lock files keep them apart), not the host's.
    if "session_homes" not in config:
        config_text = f'session_homes = "{work / "homes"}"\n' + config_text
    # The bus key and the NATS seed: where this run wrote them.
    for option in ("key_file", "nkey_seed_file"):
        path = config.get("cluster", {}).get(option)
        if path in plan["local_files"]:
            config_text = config_text.replace(f'"{path}"', f'"{plan["local_files"][path]}"')
            check(tomllib.loads(config_text)["cluster"][option] == str(plan["local_files"][path]),
                  f"{node['name']}: [cluster] {option} {path} not mapped to {plan['local_files'][path]}")
    local_config = node_dir / Path(config_path).name
    local_config.write_text(config_text)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PANECAST_")}
    env.update(node["env"])
    env["PANECAST_LISTEN"] = f"127.0.0.1:{port}"
    if env.get("PANECAST_CONFIG") == config_path:
        env["PANECAST_CONFIG"] = str(local_config)
    cluster = urllib.parse.urlsplit(env["PANECAST_CLUSTER"])
    env["PANECAST_CLUSTER"] = f"{cluster.scheme}://127.0.0.1:{plan['local_nats_port']}"
    argv = [BIN] + [str(local_config) if a == config_path else a for a in node["args"]]
    log = node_dir / "stderr.log"
    user = {}
    if "user" in node and os.getuid() == 0:
        # As the pod's securityContext runs it: its uid and gid, no root.
        uid, gid = node["user"]
        os.chown(node_dir, uid, gid)
        env["HOME"] = str(node_dir)
        user = {"user": uid, "group": gid, "extra_groups": []}
    with open(node_dir / "stdout.log", "w") as out, open(log, "w") as err:
        process = subprocess.Popen(argv, env=env, cwd=node_dir, stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                                   **user)
    processes.append(process)
    return {"process": process, "env": env, "origin": f"http://127.0.0.1:{port}", "log": log, "dir": node_dir}


def wait_healthy(node, running):
    """Waits for /healthz to answer 200; returns its body."""
    started = time.monotonic()
    while True:
        check(running["process"].poll() is None,
              f"node {node['name']} exited {running['process'].returncode}:\n{log_tail(running['log'])}")
        try:
            status, body = request("GET", running["origin"] + "/healthz")
            if status == 200:
                return body
        except OSError:
            pass
        check(time.monotonic() - started < DEADLINE,
              f"node {node['name']} did not answer /healthz within {DEADLINE} s:\n{log_tail(running['log'])}")
        time.sleep(0.1)


def listed(origin, token, session_id):
    status, body = request("GET", origin + "/api/sessions", token)
    check(status == 200, f"GET {origin}/api/sessions answers {status}: {body}")
    return [s for s in body["sessions"] if s["id"] == session_id]


def run(label, plan, work):
    """Runs NATS and three nodes as `plan` says; checks that they form one cluster."""
    print(f"{label}: nats-server {' '.join(plan['nats_args'])} and 3 nodes")
    work.mkdir(mode=0o755)
    work.chmod(0o755)
    # This run's bus key and NATS user, where the manifest's files and NATS's environment get them.
    keys = make_keys()
    plan["local_files"] = write_secret_files(plan, work, keys)
    if plan["nats_env_file"]:
        # The operator's env file, as compose reads it.
        nats_env_file = work / plan["nats_env_file"]
        nats_env_file.write_text(f"# written by tests/cluster_deploy.py\n{plan['nkey_variable']}={keys['public']}\n")
        nats_env = read_env_file(nats_env_file)
    else:
        # The Secret's value, as the operator puts it there (k8s/secret.yaml).
        nats_env = {plan["nkey_variable"]: keys["public"]}
    nats, plan["local_nats_port"] = start_nats(plan, work, nats_env)
    check_bus_closed(label, plan["local_nats_port"])
    if plan["env_file"]:
        # The operator's env file, as compose reads it.
        env_file = work / plan["env_file"]
        env_file.write_text(f"# written by tests/cluster_deploy.py\nPANECAST_TOKEN={random_token()}\n")
        for node in plan["nodes"]:
            node["env"] = {**read_env_file(env_file), **node["env"]}
    tokens = {node["env"]["PANECAST_TOKEN"] for node in plan["nodes"]}
    check(len(tokens) == 1, f"{label}: the nodes do not share one token")
    (token,) = tokens
    running = [start_node(i, node, plan, work, quiet_port()) for i, node in enumerate(plan["nodes"])]
    for node, r in zip(plan["nodes"], running):
        isolation = wait_healthy(node, r).get("isolation")
        if os.getuid() == 0:
            # Root with the capabilities (compose) gives each session a uid;
            # the pod's non-root user cannot (the manifests say so).
            expected = "none" if "user" in node else "uid"
            check((isolation == "uid") == (expected == "uid"),
                  f"{label}: {node['name']}'s /healthz says isolation {isolation!r}, the manifest's comments {expected!r}")
        if "health" in node:
            # compose's healthcheck: `panecast health` with the node's environment.
            result = subprocess.run([BIN] + node["health"][1:], env=r["env"], capture_output=True, text=True, timeout=15)
            check(node["health"][0] == "panecast" and result.returncode == 0,
                  f"{label}: {node['name']}'s healthcheck {node['health']} exits {result.returncode}: {result.stderr}")
        for path in node.get("probes", []):
            status, _ = request("GET", r["origin"] + path)
            check(status == 200, f"{label}: {node['name']}'s probe {path} answers {status}")
    names = [node["name"] for node in plan["nodes"]]

    # A session on node 1, with the configuration's profile.
    profile = next(iter(tomllib.loads(plan["nodes"][0]["config"][1]).get("profiles", {"shell": None})))
    status, session = request("POST", running[0]["origin"] + "/api/sessions", token, {"profile": profile, "name": "deploy-check"})
    check(status == 201, f"{label}: POST /api/sessions on {names[0]} answers {status}: {session}")
    session_id = session["id"]
    check(session.get("node") == names[0], f"{label}: the session's node is {session.get('node')}, not {names[0]}")
    started = time.monotonic()
    while True:
        lists = [listed(r["origin"], token, session_id) for r in running]
        if all(len(found) == 1 and found[0].get("node") == names[0] for found in lists):
            break
        check(time.monotonic() - started < DEADLINE,
              f"{label}: the session of {names[0]} is not listed by every node with its node within {DEADLINE} s: "
              + "; ".join(f"{n}: {found}" for n, found in zip(names, lists)))
        time.sleep(0.1)
    print(f"{label}: session {session_id} of {names[0]} listed by {names[1]} and {names[2]} "
          f"in {time.monotonic() - started:.2f} s")
    if plan["public_name"]:
        status, _ = request("GET", running[1]["origin"] + "/api/sessions", token, host=plan["public_name"])
        check(status == 200, f"{label}: GET /api/sessions with Host {plan['public_name']} answers {status}")
    # Behind the Service, any node serves a session's own routes: the
    # session object and its screen on a node that does not run it.
    status, seen = request("GET", f"{running[1]['origin']}/api/sessions/{session_id}", token)
    check(status == 200 and seen.get("node") == names[0],
          f"{label}: GET /api/sessions/ID of {names[0]}'s session on {names[1]} answers {status}: {seen}")
    status, _ = request("GET", f"{running[2]['origin']}/api/sessions/{session_id}/screen", token)
    check(status == 200, f"{label}: its screen on {names[2]} answers {status}")

    # Deleted on its node: gone from every list.
    status, body = request("DELETE", f"{running[0]['origin']}/api/sessions/{session_id}", token)
    check(status == 200, f"{label}: DELETE on {names[0]} answers {status}: {body}")
    started = time.monotonic()
    while any(listed(r["origin"], token, session_id) for r in running):
        check(time.monotonic() - started < DEADLINE, f"{label}: the deleted session is still listed after {DEADLINE} s")
        time.sleep(0.1)

    # SIGTERM: each node stops in time, NATS still up, without logging the token or the keys.
    for node, r in zip(plan["nodes"], running):
        started = time.monotonic()
        r["process"].send_signal(signal.SIGTERM)
        try:
            code = r["process"].wait(timeout=node["grace"])
        except subprocess.TimeoutExpired:
            code = None
        took = time.monotonic() - started
        check(code == 0, f"{label}: {node['name']} exits {code} {took:.1f} s after SIGTERM (grace {node['grace']} s)")
        logs = r["log"].read_text() + (r["dir"] / "stdout.log").read_text()
        check(token not in logs, f"{label}: {node['name']} logged the token")
        check(keys["key"] not in logs and keys["seed"] not in logs, f"{label}: {node['name']} logged the bus key or the seed")
    nats.terminate()
    nats.wait(timeout=10)


def main():
    started = time.monotonic()
    check(Path(BIN).exists(), f"no binary at {BIN} (set PANECAST_BIN)")
    help_text = subprocess.run([BIN, "serve", "--help"], capture_output=True, text=True, check=True).stdout
    docker = dockerfile()
    compose = compose_plan(load_compose(), docker, help_text)
    k8s = k8s_plan(load_k8s(), docker, help_text)
    work = Path(tempfile.mkdtemp(prefix="panecast-cluster-deploy-"))
    work.chmod(0o755)
    try:
        run("compose", compose, work / "compose")
        run("k8s", k8s, work / "k8s")
    finally:
        kill_all()
        shutil.rmtree(work, ignore_errors=True)
    print(f"cluster deploy: {checks} checks passed in {time.monotonic() - started:.1f} s")


if __name__ == "__main__":
    main()
