#!/usr/bin/env python3
"""One user's load on the vault service, and another user's Status timed meanwhile
(Benchmarks/run-vault-service-audit-load.sh runs it as each user).

  vault-service-audit-load.py fill N      N reads of absent items with 256-byte keys: N audit entries
  vault-service-audit-load.py audit S T   T threads calling Audit(0) without pause for S seconds
  vault-service-audit-load.py status N    N Status calls, one after the other: prints the p50 and p95 (ms)
"""
import sys
import threading
import time

from jeepney import DBusAddress, new_method_call
from jeepney.io.blocking import open_dbus_connection

VAULT = DBusAddress("/io/github/biometricsvault/Vault1", bus_name="io.github.biometricsvault.Vault1",
                    interface="io.github.biometricsvault.Vault1")

mode = sys.argv[1]
if mode == "fill":
    bus = open_dbus_connection(bus="SYSTEM")
    for index in range(int(sys.argv[2])):
        bus.send_and_get_reply(new_method_call(VAULT, "Read", "ssay", ("audit-load", f"{index:08}" + "k" * 248, b"")))
elif mode == "audit":
    deadline = time.monotonic() + float(sys.argv[2])
    answered = [0, 0]

    def load(slot):
        bus = open_dbus_connection(bus="SYSTEM")
        while time.monotonic() < deadline:
            reply = bus.send_and_get_reply(new_method_call(VAULT, "Audit", "t", (0,)), timeout=60)
            answered[slot % 2] += 1

    threads = [threading.Thread(target=load, args=(slot,)) for slot in range(int(sys.argv[3]))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    print(f"audit calls answered: {sum(answered)}")
elif mode == "status":
    bus = open_dbus_connection(bus="SYSTEM")
    times = []
    for _ in range(int(sys.argv[2])):
        start = time.perf_counter()
        bus.send_and_get_reply(new_method_call(VAULT, "Status"))
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    print(f"p50 {times[len(times) // 2]:.2f} p95 {times[int(len(times) * 0.95)]:.2f}")
else:
    sys.exit(__doc__)
