#!/usr/bin/env python3
"""Checks deploy/k8s against the binary and the Dockerfile, since no cluster
runs here. The manifests parse; every flag and environment variable the
container is given is one `panecast serve --help` documents; the server
started as the Deployment starts it (its args, env, Secret and ConfigMap)
answers every probe path and the Ingress path; every port named matches the
Dockerfile's EXPOSE, the container, the Service and the Ingress; the image is
the Dockerfile's; the pod is non-root, read-only, without capabilities, with
a writable /tmp; its termination grace is above the server's kill grace.

Usage: python3 tests/k8s.py   (PANECAST_BIN: the binary, default
target/debug/panecast). Installs PyYAML from PyPI when it is missing.
"""

import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import tomllib
import urllib.error
import urllib.request
from pathlib import Path

from quiet_port import quiet_port

ROOT = Path(__file__).resolve().parent.parent
K8S = ROOT / "deploy" / "k8s"
BIN = os.environ.get("PANECAST_BIN", str(ROOT / "target" / "debug" / "panecast"))

try:
    import yaml
except ImportError:
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "pyyaml"], check=True)
    import yaml

checks = 0


def check(condition, message):
    """Counts a check; stops with the message when it fails."""
    global checks
    checks += 1
    if not condition:
        sys.exit(f"k8s.py: {message}")


def load():
    """Every document of every manifest, by kind (one of each)."""
    docs = {}
    for path in sorted(K8S.glob("*.yaml")):
        for doc in yaml.safe_load_all(path.read_text()):
            check(isinstance(doc, dict), f"{path.name}: a document is not a mapping")
            for key in ("apiVersion", "kind"):
                check(key in doc, f"{path.name}: no {key}")
            if doc["kind"] != "Kustomization":
                check(doc.get("metadata", {}).get("name"), f"{path.name}: no metadata.name")
            check(doc["kind"] not in docs, f"two {doc['kind']} documents")
            docs[doc["kind"]] = doc
    listed = docs["Kustomization"]["resources"]
    files = sorted(p.name for p in K8S.glob("*.yaml") if p.name != "kustomization.yaml")
    check(sorted(listed) == files, f"kustomization lists {listed}, the folder has {files}")
    return docs


def dockerfile():
    """The runtime stage's EXPOSE port and image title."""
    text = (ROOT / "Dockerfile").read_text()
    expose = re.findall(r"^EXPOSE (\d+)$", text, re.M)
    title = re.findall(r'org\.opencontainers\.image\.title="([^"]+)"', text)
    check(len(expose) == 1 and len(title) == 1, "the Dockerfile has one EXPOSE and one image title")
    return int(expose[0]), title[0]


def get(url, token=None, host=None):
    request = urllib.request.Request(url)
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    if host:
        request.add_header("Host", host)
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status
    except urllib.error.HTTPError as e:
        return e.code


def main():
    docs = load()
    deployment, service, ingress = docs["Deployment"], docs["Service"], docs["Ingress"]
    secret, configmap = docs["Secret"], docs["ConfigMap"]
    expose, title = dockerfile()
    pod = deployment["spec"]["template"]["spec"]
    (container,) = pod["containers"]

    # One replica, never two at once.
    check(deployment["spec"]["replicas"] == 1, "one replica: sessions live in one process")
    check(deployment["spec"]["strategy"]["type"] == "Recreate", "Recreate: no second pod during an update")
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    check(deployment["spec"]["selector"]["matchLabels"].items() <= labels.items(), "the selector matches the pod")
    check(service["spec"]["selector"].items() <= labels.items(), "the Service selects the pod")

    # The image is the Dockerfile's.
    image = container["image"]
    check(image.rsplit(":", 1)[0].rsplit("/", 1)[-1] == title, f"image {image} is not the Dockerfile's ({title})")

    # Ports: EXPOSE, containerPort, the listen address, the Service, the Ingress.
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    check(list(ports.values()) == [expose], f"containerPort {ports} is the Dockerfile's EXPOSE {expose}")
    env = {e["name"]: e for e in container["env"]}
    listen = env["PANECAST_LISTEN"]["value"]
    check(listen.endswith(f":{expose}"), f"PANECAST_LISTEN {listen} listens on {expose}")
    service_ports = {p["name"]: p for p in service["spec"]["ports"]}
    for port in service_ports.values():
        check(port["targetPort"] in ports, f"Service targetPort {port['targetPort']} is a container port")
    for rule in ingress["spec"]["rules"]:
        for path in rule["http"]["paths"]:
            backend = path["backend"]["service"]
            check(backend["name"] == service["metadata"]["name"], "the Ingress routes to the Service")
            check(backend["port"]["name"] in service_ports, "the Ingress names a Service port")

    # Flags and environment variables exist in the binary.
    help_text = subprocess.run([BIN, "serve", "--help"], capture_output=True, text=True, check=True).stdout
    args = container["args"]
    check(args[0] == "serve", "the container runs serve")
    for flag in [a for a in args if a.startswith("--")]:
        check(re.search(rf"\s{re.escape(flag)}\b", help_text), f"{flag} is not an option of serve")
    for name in env:
        check(f"[env: {name}" in help_text, f"{name} is not an environment variable of serve")

    # Security context, volumes, termination grace.
    pod_security, security = pod["securityContext"], container["securityContext"]
    check(pod_security["runAsNonRoot"] is True and pod_security["runAsUser"] != 0, "non-root")
    check(security["readOnlyRootFilesystem"] is True, "read-only root filesystem")
    check(security["capabilities"]["drop"] == ["ALL"], "every capability dropped")
    check(security["allowPrivilegeEscalation"] is False, "no privilege escalation")
    volumes = {v["name"]: v for v in pod["volumes"]}
    mounts = {m["mountPath"]: m["name"] for m in container["volumeMounts"]}
    check("/tmp" in mounts and "emptyDir" in volumes[mounts["/tmp"]], "an emptyDir at /tmp")
    for kind in ("requests", "limits"):
        check({"cpu", "memory"} <= container["resources"][kind].keys(), f"cpu and memory {kind}")

    # The configuration, mounted from the ConfigMap where --config names it.
    config_path = Path(args[args.index("--config") + 1])
    config_volume = volumes[mounts[str(config_path.parent)]]
    check(config_volume["configMap"]["name"] == configmap["metadata"]["name"], "--config is in the ConfigMap")
    config_text = configmap["data"][config_path.name]
    config = tomllib.loads(config_text)
    base = config.get("base_path", "")
    grace_ms = config.get("limits", {}).get("grace_ms", 2000)
    check(pod["terminationGracePeriodSeconds"] > grace_ms / 1000 + 3,
          "terminationGracePeriodSeconds above the kill grace, the viewers' close and the drain")
    for path in (p["path"] for r in ingress["spec"]["rules"] for p in r["http"]["paths"]):
        check(path == base, f"the Ingress path {path} is the base_path {base!r}")
    read_timeout = int(ingress["metadata"]["annotations"]["nginx.ingress.kubernetes.io/proxy-read-timeout"])
    ping_ms = config.get("limits", {}).get("ping_interval_ms", 15000)
    check(read_timeout * 1000 > 2 * ping_ms, "the Ingress read timeout is well above the ping interval")

    # The server as the Deployment starts it, on a loopback port instead.
    token_ref = env["PANECAST_TOKEN"]["valueFrom"]["secretKeyRef"]
    check(token_ref["name"] == secret["metadata"]["name"], "the token comes from the Secret")
    token = secret["stringData"][token_ref["key"]]
    port = quiet_port()
    with tempfile.TemporaryDirectory() as tmp:
        local_config = Path(tmp) / config_path.name
        local_config.write_text(config_text)
        run_env = {k: v for k, v in os.environ.items() if not k.startswith("PANECAST_")}
        run_env.update({name: e["value"] for name, e in env.items() if "value" in e})
        run_env["PANECAST_TOKEN"] = token
        run_env["PANECAST_LISTEN"] = f"127.0.0.1:{port}"
        argv = [BIN] + [str(local_config) if a == str(config_path) else a for a in args]
        server = subprocess.Popen(argv, env=run_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            server.stdout.readline()
            origin = f"http://127.0.0.1:{port}"
            for probe in ("readinessProbe", "livenessProbe"):
                http_get = container[probe]["httpGet"]
                check(http_get["port"] in ports, f"the {probe} port is a container port")
                status = get(origin + http_get["path"])
                check(status == 200, f"{probe} {http_get['path']} answers {status}")
            for rule in ingress["spec"]["rules"]:
                host = rule["host"]
                check(host in config.get("public_names", []), f"the Ingress host {host} is a public name")
                status = get(f"{origin}{base}/", token, host)
                check(status == 200, f"https://{host}{base}/ serves the session list, not {status}")
                status = get(f"{origin}{base}/api/sessions", token, host)
                check(status == 200, f"the API lives under the Ingress path, not {status}")
            started = time.monotonic()
            server.send_signal(signal.SIGTERM)
            code = server.wait(timeout=pod["terminationGracePeriodSeconds"])
            took = time.monotonic() - started
            check(code == 0, f"serve exits 0 on SIGTERM, not {code}")
            check(took < pod["terminationGracePeriodSeconds"], f"serve took {took:.1f} s to stop")
            logs = server.stderr.read()
            check(token not in logs, "the token is not logged")
        finally:
            if server.poll() is None:
                server.kill()
                server.wait()
    print(f"k8s manifests: {checks} checks passed")


if __name__ == "__main__":
    main()
