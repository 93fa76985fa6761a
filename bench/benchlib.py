"""What the benchmarks share: a free loopback port, one JSON request to a
daemon, a process's memory and CPU from /proc, percentiles.  Imported by
the scripts beside it (python3 bench/NAME.py puts bench/ on sys.path)."""
import http.client, json, os, resource, socket, sys, time


def free_port(host="127.0.0.1"):
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def request(port, method, path, body=None, timeout=30):
    """One request to the daemon on 127.0.0.1:port: (status, parsed JSON or None)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    headers = {"Content-Type": "application/json"} if body is not None else {}
    conn.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
    r = conn.getresponse()
    data = r.read()
    conn.close()
    return r.status, json.loads(data) if data else None


def rss_kb(pid, field):
    """A /proc/PID/status memory field (VmRSS, VmHWM) in kB; -1 when gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return -1


def children_cpu():
    """CPU seconds of this process's waited-for children."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def proc_cpu(pid):
    """CPU seconds of a process and its live descendants (the daemon, its
    workers and their fork servers' children, which serve the cases)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    pids, i = [pid], 0
    while i < len(pids):
        try:
            for task in os.listdir(f"/proc/{pids[i]}/task"):
                with open(f"/proc/{pids[i]}/task/{task}/children") as f:
                    pids += [int(x) for x in f.read().split() if int(x) not in pids]
        except OSError:
            pass
        i += 1
    for p in pids:
        try:
            with open(f"/proc/{p}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / tick
        except OSError:
            pass
    return total


def pct(values, p):
    """The p-th percentile (nearest rank) of values; NaN for none."""
    if not values:
        return float("nan")
    values = sorted(values)
    k = max(0, min(len(values) - 1, int(round(p / 100 * len(values) + 0.5)) - 1))
    return values[k]


def wait_health(port, daemon, limit_s, log_name):
    """Poll /api/health until it answers 200; exit when the daemon dies or
    limit_s passes (see the log)."""
    t_start = time.monotonic()
    while True:
        try:
            if request(port, "GET", "/api/health")[0] == 200:
                return
        except OSError:
            pass
        if daemon.poll() is not None or time.monotonic() - t_start > limit_s:
            sys.exit("bench: the daemon did not start; see " + log_name)
        time.sleep(0.05)


def run_to_end(port, body, poll_s=0.02, poll_frac=0):
    """POST /api/runs (must be 202) and poll until the run has ended; the run.
    poll_frac: wait at least that share of the time so far between polls (a
    GET costs the daemon 1-3 ms of CPU, which a long run's workers miss on a
    2-core machine); the end is then seen within that share of the wall time."""
    status, run = request(port, "POST", "/api/runs", body)
    if status != 202:
        sys.exit(f"bench: POST /api/runs answered {status}: {run}")
    t0 = time.monotonic()
    while True:
        status, run = request(port, "GET", f"/api/runs/{run['id']}")
        if run["status"] not in ("queued", "running"):
            return run
        time.sleep(max(poll_s, poll_frac * (time.monotonic() - t0)))
