# A real PyTorch NCCL job for the device check: one rank, an all_reduce, then it sleeps.
# argv: READY_FILE SLEEP_S [--lo-up]
import os, sys, time
if '--lo-up' in sys.argv:
    import socket, fcntl, struct
    s = socket.socket()
    flags = struct.unpack('16sh', fcntl.ioctl(s, 0x8913, struct.pack('16sh', b'lo', 0)))[1]
    fcntl.ioctl(s, 0x8914, struct.pack('16sh', b'lo', flags | 1))
import torch, torch.distributed as dist
port = os.environ.get('JOB_PORT', '29500')
dist.init_process_group('nccl', init_method='tcp://127.0.0.1:' + port, rank=0, world_size=1, device_id=torch.device('cuda:0'))
t = torch.ones(1024, device='cuda'); dist.all_reduce(t); torch.cuda.synchronize()
open(sys.argv[1], 'w').write('ok %s %s\n' % (t[0].item(), torch.cuda.nccl.version()))
time.sleep(float(sys.argv[2]))
