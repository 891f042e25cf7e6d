# Rank 1 of 2 with NCCL_COMM_ID from the environment: an address on no local subnet makes the bootstrap find no
# interface (NCCL WARNs and init fails); an address nobody answers leaves its connect to the root in SYN_SENT.
import ctypes, glob, os, sys, time, torch
torch.cuda.set_device(0)
lib = [l.split()[-1] for l in open('/proc/self/maps') if 'libnccl.so' in l]
path = lib[0] if lib else glob.glob(os.path.join(os.path.dirname(torch.__file__), '..', 'nvidia', 'nccl', 'lib', 'libnccl.so*'))[0]
nccl = ctypes.CDLL(path)
class UID(ctypes.Structure): _fields_ = [('b', ctypes.c_char * 128)]
uid = UID(); print('getUniqueId', nccl.ncclGetUniqueId(ctypes.byref(uid)), path, flush=True)
open(sys.argv[1], 'w').write('calling\n')
comm = ctypes.c_void_p()
print('initRank', nccl.ncclCommInitRank(ctypes.byref(comm), 2, uid, 1), flush=True)
time.sleep(600)
