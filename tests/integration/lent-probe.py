# SPDX-License-Identifier: MIT
# The probes of lent.sh: each tries one thing that needs a privilege and
# prints "TAG RESULT" (ok, or the errno's name).  Run natively and under
# sysgate by the same user; lent.sh compares the lines and judges the
# effects from outside (the route, the xattrs, the receiver's log).
#
#   lent-probe.py TAG DIR ROUTE-OCTET SOCKET
import ctypes
import errno
import os
import socket
import stat
import struct
import sys


def say(tag, fn):
    try:
        extra = fn()
        print(tag, "ok" if extra is None else "ok " + extra, flush=True)
    except OSError as e:
        print(tag, errno.errorcode.get(e.errno, str(e.errno)), flush=True)


def route(octet):
    """RTM_NEWROUTE 10.99.OCTET.0/24 dev lo, sent with a destination
    address: netlink then checks the sender's CAP_NET_ADMIN only."""
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)
    s.settimeout(5)
    rtm = struct.pack("BBBBBBBBI", socket.AF_INET, 24, 0, 0, 254, 4, 253, 1, 0)
    dst = struct.pack("HH4s", 8, 1, bytes([10, 99, octet, 0]))
    oif = struct.pack("HHi", 8, 4, 1)
    body = rtm + dst + oif
    flags = 0x1 | 0x4 | 0x400 | 0x200   # REQUEST, ACK, CREATE, EXCL
    msg = struct.pack("IHHII", 16 + len(body), 24, flags, 1, 0) + body
    s.sendto(msg, (0, 0))
    ack = s.recv(4096)
    err = struct.unpack_from("i", ack, 16)[0]
    if err:
        raise OSError(-err, os.strerror(-err))


def xattr(path, name):
    if name == "security.capability":
        # VFS_CAP_REVISION_2, effective: cap_net_raw+ep.
        val = struct.pack("<IIIII", 0x02000001, 1 << 13, 0, 0, 0)
    else:
        val = b"lent"
    os.setxattr(path, name, val)


def kmsg():
    fd = os.open("/dev/kmsg", os.O_RDONLY | os.O_NONBLOCK)
    try:
        return "read" if os.read(fd, 8192) else "empty"
    finally:
        os.close(fd)


def kallsyms():
    with open("/proc/kallsyms") as f:
        addrs = [f.readline().split()[0] for _ in range(20)]
    return "zeros" if all(int(a, 16) == 0 for a in addrs) else "addresses"


def bind_low():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", 999))
    s.close()


def scm(path, label, creds):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    anc = []
    if creds is not None:
        anc = [(socket.SOL_SOCKET, socket.SCM_CREDENTIALS,
                struct.pack("iII", *creds))]
    s.sendmsg([label.encode()], anc, 0, path)


def fifo(d):
    """A FIFO open that waits for its writer: carried out on a thread
    of sysgate's other than its event loop."""
    p = os.path.join(d, "fifo")
    os.mkfifo(p)
    pid = os.fork()
    if pid == 0:
        fd = os.open(p, os.O_WRONLY)
        os.write(fd, b"fifo")
        os._exit(0)
    fd = os.open(p, os.O_RDONLY)
    got = os.read(fd, 4)
    os.close(fd)
    os.waitpid(pid, 0)
    return got.decode()


def bind_unix(d):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(os.path.join(d, "bound.sock"))
    s.close()


def peercred(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    s.close()


def nodump(path):
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(4, 0, 0, 0, 0) != 0:     # PR_SET_DUMPABLE
        raise OSError(ctypes.get_errno(), "prctl")
    with open(path) as f:
        f.read()
    with open(path + ".nodump", "w") as f:
        f.write("x")


def userns(d, octet):
    """In a user namespace of its own, where it is root with every
    capability: a route (in the test's network namespace, which the
    initial user namespace owns) and a trusted.* xattr, from a program
    run there (an exec: the capabilities are read again)."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        os.dup2(w, 1)
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.unshare(0x10000000) != 0:      # CLONE_NEWUSER
            print("userns-setup", errno.errorcode[ctypes.get_errno()])
            os._exit(0)
        uid, gid = os.getuid(), os.getgid()
        for f, v in (("setgroups", "deny"), ("uid_map", "0 %d 1" % uid),
                     ("gid_map", "0 %d 1" % gid)):
            with open("/proc/self/" + f, "w") as m:
                m.write(v)
        os.execv(sys.executable, [sys.executable, __file__, "--in-userns",
                                  d, str(octet)])
    os.close(w)
    with os.fdopen(r) as f:
        out = f.read().split()
    os.waitpid(pid, 0)
    return " ".join(out)


def in_userns(d, octet):
    mine = os.path.join(d, "mine-userns")
    results = []
    for fn in (lambda: route(octet), lambda: xattr(mine, "trusted.lent")):
        try:
            fn()
            results.append("ok")
        except OSError as e:
            results.append(errno.errorcode.get(e.errno, str(e.errno)))
    print("/".join(results))


def main():
    if sys.argv[1] == "--in-userns":
        in_userns(sys.argv[2], int(sys.argv[3]))
        return
    d, octet, sock = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    mine = os.path.join(d, "mine")
    with open(mine, "w") as f:
        f.write("mine\n")
    with open(mine + "-userns", "w") as f:
        f.write("mine\n")
    say("route", lambda: route(octet))
    say("xattr-security", lambda: xattr(mine, "security.capability"))
    say("xattr-trusted", lambda: xattr(mine, "trusted.lent"))
    say("kmsg", kmsg)
    say("kallsyms", kallsyms)
    say("bind-999", bind_low)
    say("chown-root", lambda: os.chown(mine, 0, 0))
    say("mknod-null", lambda: os.mknod(os.path.join(d, "null"),
                                       stat.S_IFCHR | 0o666,
                                       os.makedev(1, 3)))
    say("peercred", lambda: peercred(sock + ".s"))
    say("scm-forged", lambda: scm(sock, "forged", (1, 0, 0)))
    say("scm-own", lambda: scm(sock, "own", (os.getpid(), os.getuid(),
                                             os.getgid())))
    say("scm-plain", lambda: scm(sock, "plain", None))
    say("userns", lambda: userns(d, octet + 100))
    say("fifo", lambda: fifo(d))
    say("bind-unix", lambda: bind_unix(d))
    say("nodump-open", lambda: nodump(mine))
    print("pid", os.getpid(), flush=True)


main()
