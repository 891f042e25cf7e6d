# A stand-in NCCL job for the process tests (test/job/process.test.ts): it
# maps an "NCCL library" (dlopen for a real shared object, mmap for any other
# file: both show in /proc/PID/maps), optionally mounts a private HOME with an
# nccl.conf (only its mount namespace sees it), listens where NCCL's bootstrap
# would, connects to the rendezvous address without waiting (SYN_SENT when
# nobody answers), prints "ready" and sleeps until killed.
#   python3 job.py LIB {dlopen|mmap} LISTEN_ADDR CONNECT_ADDR CONNECT_PORT [HOME_CONF_LINE]
import ctypes, mmap, os, socket, subprocess, sys, time

lib, how, listen_addr, connect_addr, connect_port = sys.argv[1:6]
conf = sys.argv[6] if len(sys.argv) > 6 else None
if how == 'dlopen':
    ctypes.CDLL(lib)
else:
    f = open(lib, 'rb')
    m = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)
if conf is not None:
    home = os.environ['HOME']
    subprocess.run(['mount', '-t', 'tmpfs', 'ncclxhome', home], check=True)
    with open(os.path.join(home, '.nccl.conf'), 'w') as f:
        f.write(conf + '\n')
keep = []
if listen_addr != '-':
    s = socket.socket(socket.AF_INET6 if ':' in listen_addr else socket.AF_INET)
    s.bind((listen_addr, 0))
    s.listen()
    keep.append(s)
if connect_addr != '-':
    c = socket.socket(socket.AF_INET6 if ':' in connect_addr else socket.AF_INET)
    c.setblocking(False)
    try:
        c.connect((connect_addr, int(connect_port)))
    except BlockingIOError:
        pass
    keep.append(c)
print('ready', flush=True)
time.sleep(600)
