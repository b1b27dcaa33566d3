#!/usr/bin/env python3
# Touches libfprint's virtual reader the moment fprintd asks for a finger (its `finger-needed` property
# turns true, or an enrollment stage passed and the next one waits), for as long as it runs: the same
# reflex for every command a benchmark measures.
#   python3 fingerprint-responder.py FINGER-ID     # BV_FPRINT_SOCKET: the virtual reader's socket
import os, socket, sys
from jeepney import MatchRule
from jeepney.bus_messages import message_bus
from jeepney.io.blocking import open_dbus_connection

finger, reader = sys.argv[1], os.environ["BV_FPRINT_SOCKET"]

def touch():
    with socket.socket(socket.AF_UNIX) as connection:
        connection.connect(reader)
        connection.sendall(f"SCAN {finger}".encode())
        connection.shutdown(socket.SHUT_WR)
        while connection.recv(64):
            pass

bus = open_dbus_connection(bus="SYSTEM")
rule = MatchRule(type="signal", path="/net/reactivated/Fprint/Device/0")
with bus.filter(rule, bufsize=1000) as queue:
    bus.send_and_get_reply(message_bus.AddMatch(rule))
    print("ready", flush=True)
    while True:
        message = bus.recv_until_filtered(queue)
        member = message.header.fields.get(3)  # HeaderFields.member
        if member == "PropertiesChanged":
            _, changed, _ = message.body
            if changed.get("finger-needed", ("b", False))[1]:
                touch()
        elif member == "EnrollStatus" and message.body[0] == "enroll-stage-passed":
            touch()
