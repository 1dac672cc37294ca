/* SPDX-License-Identifier: MIT */
/*
 * The arguments of a call as the trail names them (decode.h): one
 * signature per system call, each argument a name and a type, and the
 * names of the values a type can take (ioctl requests, resources,
 * socket families and types, clone flags, ...).  Only the registers are
 * read: what a pointer points to is the tracee's and is not read here.
 */
#include "config.h"

#include <asm/termbits.h>
#include <asm/ioctls.h>
#include <linux/fiemap.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/sockios.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include "audit/audit.h"
#include "common/util.h"
#include "rules/rules.h"
#include "supervisor/decode.h"

/* Numbers newer than the 6.1 headers. */
#ifndef __NR_cachestat
#define __NR_cachestat 451
#endif
#ifndef __NR_map_shadow_stack
#define __NR_map_shadow_stack 453
#endif
#ifndef __NR_futex_wake
#define __NR_futex_wake 454
#endif
#ifndef __NR_mseal
#define __NR_mseal 462
#endif
#define NR_fchmodat2 452
#define NR_futex_wait 455
#define NR_futex_requeue 456
#define NR_statmount 457
#define NR_listmount 458
#define NR_lsm_get_self_attr 459
#define NR_lsm_set_self_attr 460
#define NR_lsm_list_modules 461
#define NR_setxattrat 463
#define NR_getxattrat 464
#define NR_listxattrat 465
#define NR_removexattrat 466
#define NR_open_tree_attr 467
#define NR_file_getattr 468
#define NR_file_setattr 469

/*
 * Signatures: "name:T,name:T,..." in register order, at most six; "-"
 * skips a register that the caller records itself (add_net_scalar()).
 * Types:
 *   d int   u unsigned int   l long   z size / unsigned long
 *   p pointer (hex)   f fd (AT_FDCWD by name)   P pid   m mode (octal)
 *   S signal   o O_* flags   W whence   r PROT_*   M MAP_*   a MADV_*
 *   h sigprocmask how   F fcntl command   X prctl option   U futex op
 *   k clock   R resource   A address family   T socket type and flags
 *   C clone flags and exit signal   c clone flags alone   I ioctl request
 * A call without a signature keeps its registers in "raw".
 */
static const char *const sigs[] = {
	[__NR_read] = "fd:f,buf:p,count:z",
	[__NR_write] = "fd:f,buf:p,count:z",
	[__NR_close] = "fd:f",
	[__NR_fstat] = "fd:f,statbuf:p",
	[__NR_poll] = "fds:p,nfds:u,timeout:d",
	[__NR_lseek] = "fd:f,offset:l,whence:W",
	[__NR_mmap] = "addr:p,length:z,prot:r,flags:M,fd:f,offset:l",
	[__NR_mprotect] = "addr:p,length:z,prot:r",
	[__NR_munmap] = "addr:p,length:z",
	[__NR_brk] = "addr:p",
	[__NR_rt_sigaction] = "signal:S,act:p,oldact:p,sigsetsize:z",
	[__NR_rt_sigprocmask] = "how:h,set:p,oldset:p,sigsetsize:z",
	[__NR_rt_sigreturn] = "",
	[__NR_ioctl] = "fd:f,request:I,arg:p",
	[__NR_pread64] = "fd:f,buf:p,count:z,offset:l",
	[__NR_pwrite64] = "fd:f,buf:p,count:z,offset:l",
	[__NR_readv] = "fd:f,iov:p,iovcnt:d",
	[__NR_writev] = "fd:f,iov:p,iovcnt:d",
	[__NR_pipe] = "pipefd:p",
	[__NR_select] = "nfds:d,readfds:p,writefds:p,exceptfds:p,timeout:p",
	[__NR_sched_yield] = "",
	[__NR_mremap] = "old_address:p,old_size:z,new_size:z,flags:u,new_address:p",
	[__NR_msync] = "addr:p,length:z,flags:u",
	[__NR_mincore] = "addr:p,length:z,vec:p",
	[__NR_madvise] = "addr:p,length:z,advice:a",
	[__NR_shmget] = "key:d,size:z,shmflg:u",
	[__NR_shmat] = "shmid:d,shmaddr:p,shmflg:u",
	[__NR_shmctl] = "shmid:d,cmd:d,buf:p",
	[__NR_dup] = "oldfd:f",
	[__NR_dup2] = "oldfd:f,newfd:f",
	[__NR_pause] = "",
	[__NR_nanosleep] = "req:p,rem:p",
	[__NR_getitimer] = "which:d,curr_value:p",
	[__NR_alarm] = "seconds:u",
	[__NR_setitimer] = "which:d,new_value:p,old_value:p",
	[__NR_getpid] = "",
	[__NR_sendfile] = "out_fd:f,in_fd:f,offset:p,count:z",
	[__NR_socket] = "-,-,-",
	[__NR_sendto] = "fd:f,buf:p,len:z,flags:u,dest_addr:p,addrlen:u",
	[__NR_recvfrom] = "fd:f,buf:p,len:z,flags:u,src_addr:p,addrlen:p",
	[__NR_sendmsg] = "fd:f,msg:p,flags:u",
	[__NR_recvmsg] = "fd:f,msg:p,flags:u",
	[__NR_shutdown] = "fd:f,how:d",
	[__NR_listen] = "-,-",
	[__NR_accept] = "-,addr:p,addrlen:p",
	[__NR_getsockname] = "fd:f,addr:p,addrlen:p",
	[__NR_getpeername] = "fd:f,addr:p,addrlen:p",
	[__NR_socketpair] = "domain:A,type:T,protocol:d,sv:p",
	[__NR_setsockopt] = "-,-,-,optval:p,optlen:u",
	[__NR_getsockopt] = "fd:f,level:d,optname:d,optval:p,optlen:p",
	[__NR_clone] = "flags:C,stack:p,parent_tid:p,child_tid:p,tls:p",
	[__NR_fork] = "",
	[__NR_vfork] = "",
	[__NR_exit] = "status:d",
	[__NR_wait4] = "pid:P,wstatus:p,options:u,rusage:p",
	[__NR_uname] = "buf:p",
	[__NR_semget] = "key:d,nsems:d,semflg:u",
	[__NR_semop] = "semid:d,sops:p,nsops:z",
	[__NR_semctl] = "semid:d,semnum:d,cmd:d,arg:p",
	[__NR_shmdt] = "shmaddr:p",
	[__NR_msgget] = "key:d,msgflg:u",
	[__NR_msgsnd] = "msqid:d,msgp:p,msgsz:z,msgflg:u",
	[__NR_msgrcv] = "msqid:d,msgp:p,msgsz:z,msgtyp:l,msgflg:u",
	[__NR_msgctl] = "msqid:d,cmd:d,buf:p",
	[__NR_fcntl] = "fd:f,cmd:F,arg:l",
	[__NR_flock] = "fd:f,operation:u",
	[__NR_fsync] = "fd:f",
	[__NR_fdatasync] = "fd:f",
	[__NR_ftruncate] = "fd:f,length:l",
	[__NR_getdents] = "fd:f,dirp:p,count:u",
	[__NR_getdents64] = "fd:f,dirp:p,count:u",
	[__NR_getcwd] = "buf:p,size:z",
	[__NR_fchdir] = "fd:f",
	[__NR_fchmod] = "fd:f,mode:m",
	[__NR_fchown] = "fd:f,owner:d,group:d",
	[__NR_umask] = "mask:m",
	[__NR_gettimeofday] = "tv:p,tz:p",
	[__NR_getrlimit] = "resource:R,rlim:p",
	[__NR_getrusage] = "who:d,usage:p",
	[__NR_sysinfo] = "info:p",
	[__NR_times] = "buf:p",
	[__NR_ptrace] = "request:d,pid:P,addr:p,data:p",
	[__NR_getuid] = "",
	[__NR_syslog] = "type:d,bufp:p,len:d",
	[__NR_getgid] = "",
	[__NR_setuid] = "uid:d",
	[__NR_setgid] = "gid:d",
	[__NR_geteuid] = "",
	[__NR_getegid] = "",
	[__NR_setpgid] = "pid:P,pgid:P",
	[__NR_getppid] = "",
	[__NR_getpgrp] = "",
	[__NR_setsid] = "",
	[__NR_setreuid] = "ruid:d,euid:d",
	[__NR_setregid] = "rgid:d,egid:d",
	[__NR_getgroups] = "size:d,list:p",
	[__NR_setgroups] = "size:z,list:p",
	[__NR_setresuid] = "ruid:d,euid:d,suid:d",
	[__NR_getresuid] = "ruid:p,euid:p,suid:p",
	[__NR_setresgid] = "rgid:d,egid:d,sgid:d",
	[__NR_getresgid] = "rgid:p,egid:p,sgid:p",
	[__NR_getpgid] = "pid:P",
	[__NR_setfsuid] = "fsuid:d",
	[__NR_setfsgid] = "fsgid:d",
	[__NR_getsid] = "pid:P",
	[__NR_capget] = "hdrp:p,datap:p",
	[__NR_capset] = "hdrp:p,datap:p",
	[__NR_rt_sigpending] = "set:p,sigsetsize:z",
	[__NR_rt_sigtimedwait] = "set:p,info:p,timeout:p,sigsetsize:z",
	[__NR_rt_sigsuspend] = "mask:p,sigsetsize:z",
	[__NR_sigaltstack] = "ss:p,old_ss:p",
	[__NR_personality] = "persona:u",
	[__NR_fstatfs] = "fd:f,buf:p",
	[__NR_getpriority] = "which:d,who:d",
	[__NR_setpriority] = "which:d,who:d,prio:d",
	[__NR_sched_setparam] = "pid:P,param:p",
	[__NR_sched_getparam] = "pid:P,param:p",
	[__NR_sched_setscheduler] = "pid:P,policy:d,param:p",
	[__NR_sched_getscheduler] = "pid:P",
	[__NR_sched_get_priority_max] = "policy:d",
	[__NR_sched_get_priority_min] = "policy:d",
	[__NR_sched_rr_get_interval] = "pid:P,tp:p",
	[__NR_mlock] = "addr:p,len:z",
	[__NR_munlock] = "addr:p,len:z",
	[__NR_mlockall] = "flags:u",
	[__NR_munlockall] = "",
	[__NR_vhangup] = "",
	[__NR_modify_ldt] = "func:d,ptr:p,bytecount:z",
	[__NR_prctl] = "option:X,arg2:z,arg3:z,arg4:z,arg5:z",
	[__NR_arch_prctl] = "code:d,addr:p",
	[__NR_adjtimex] = "buf:p",
	[__NR_setrlimit] = "resource:R,rlim:p",
	[__NR_sync] = "",
	[__NR_settimeofday] = "tv:p,tz:p",
	[__NR_reboot] = "magic:z,magic2:z,cmd:z,arg:p",
	[__NR_sethostname] = "name:p,len:z",
	[__NR_setdomainname] = "name:p,len:z",
	[__NR_iopl] = "level:d",
	[__NR_ioperm] = "from:z,num:z,turn_on:d",
	[__NR_init_module] = "image:p,len:z,param_values:p",
	[__NR_delete_module] = "name:p,flags:u",
	[__NR_quotactl] = "cmd:z,special:p,id:d,addr:p",
	[__NR_gettid] = "",
	[__NR_readahead] = "fd:f,offset:l,count:z",
	[__NR_fsetxattr] = "fd:f,name:p,value:p,size:z,flags:u",
	[__NR_fgetxattr] = "fd:f,name:p,value:p,size:z",
	[__NR_flistxattr] = "fd:f,list:p,size:z",
	[__NR_fremovexattr] = "fd:f,name:p",
	[__NR_time] = "tloc:p",
	[__NR_futex] = "uaddr:p,futex_op:U,val:u,timeout:p,uaddr2:p,val3:u",
	[__NR_sched_setaffinity] = "pid:P,cpusetsize:z,mask:p",
	[__NR_sched_getaffinity] = "pid:P,cpusetsize:z,mask:p",
	[__NR_io_setup] = "nr_events:u,ctx_idp:p",
	[__NR_io_destroy] = "ctx_id:z",
	[__NR_io_getevents] = "ctx_id:z,min_nr:l,nr:l,events:p,timeout:p",
	[__NR_io_submit] = "ctx_id:z,nr:l,iocbpp:p",
	[__NR_io_cancel] = "ctx_id:z,iocb:p,result:p",
	[__NR_epoll_create] = "size:d",
	[__NR_remap_file_pages] = "addr:p,size:z,prot:r,pgoff:z,flags:u",
	[__NR_set_tid_address] = "tidptr:p",
	[__NR_restart_syscall] = "",
	[__NR_semtimedop] = "semid:d,sops:p,nsops:z,timeout:p",
	[__NR_fadvise64] = "fd:f,offset:l,len:l,advice:d",
	[__NR_timer_create] = "clockid:k,sevp:p,timerid:p",
	[__NR_timer_settime] = "timerid:d,flags:u,new_value:p,old_value:p",
	[__NR_timer_gettime] = "timerid:d,curr_value:p",
	[__NR_timer_getoverrun] = "timerid:d",
	[__NR_timer_delete] = "timerid:d",
	[__NR_clock_settime] = "clockid:k,tp:p",
	[__NR_clock_gettime] = "clockid:k,tp:p",
	[__NR_clock_getres] = "clockid:k,res:p",
	[__NR_clock_nanosleep] = "clockid:k,flags:u,request:p,remain:p",
	[__NR_exit_group] = "status:d",
	[__NR_epoll_wait] = "epfd:f,events:p,maxevents:d,timeout:d",
	[__NR_epoll_ctl] = "epfd:f,op:d,fd:f,event:p",
	[__NR_mbind] = "addr:p,len:z,mode:d,nodemask:p,maxnode:z,flags:u",
	[__NR_set_mempolicy] = "mode:d,nodemask:p,maxnode:z",
	[__NR_get_mempolicy] = "mode:p,nodemask:p,maxnode:z,addr:p,flags:u",
	[__NR_mq_open] = "name:p,oflag:o,mode:m,attr:p",
	[__NR_mq_unlink] = "name:p",
	[__NR_mq_timedsend] = "mqdes:f,msg_ptr:p,msg_len:z,msg_prio:u,abs_timeout:p",
	[__NR_mq_timedreceive] = "mqdes:f,msg_ptr:p,msg_len:z,msg_prio:p,abs_timeout:p",
	[__NR_mq_notify] = "mqdes:f,sevp:p",
	[__NR_mq_getsetattr] = "mqdes:f,newattr:p,oldattr:p",
	[__NR_kexec_load] = "entry:z,nr_segments:z,segments:p,flags:z",
	[__NR_waitid] = "idtype:d,id:d,infop:p,options:u,rusage:p",
	[__NR_add_key] = "type:p,description:p,payload:p,plen:z,keyring:d",
	[__NR_request_key] = "type:p,description:p,callout_info:p,dest_keyring:d",
	[__NR_keyctl] = "operation:d,arg2:z,arg3:z,arg4:z,arg5:z",
	[__NR_ioprio_set] = "which:d,who:d,ioprio:d",
	[__NR_ioprio_get] = "which:d,who:d",
	[__NR_inotify_init] = "",
	[__NR_inotify_rm_watch] = "fd:f,wd:d",
	[__NR_migrate_pages] = "pid:P,maxnode:z,old_nodes:p,new_nodes:p",
	[__NR_pselect6] = "nfds:d,readfds:p,writefds:p,exceptfds:p,timeout:p,sigmask:p",
	[__NR_ppoll] = "fds:p,nfds:u,tmo_p:p,sigmask:p,sigsetsize:z",
	[__NR_unshare] = "flags:c",
	[__NR_set_robust_list] = "head:p,len:z",
	[__NR_get_robust_list] = "pid:P,head_ptr:p,len_ptr:p",
	[__NR_splice] = "fd_in:f,off_in:p,fd_out:f,off_out:p,len:z,flags:u",
	[__NR_tee] = "fd_in:f,fd_out:f,len:z,flags:u",
	[__NR_sync_file_range] = "fd:f,offset:l,nbytes:l,flags:u",
	[__NR_vmsplice] = "fd:f,iov:p,nr_segs:z,flags:u",
	[__NR_move_pages] = "pid:P,count:z,pages:p,nodes:p,status:p,flags:u",
	[__NR_epoll_pwait] = "epfd:f,events:p,maxevents:d,timeout:d,sigmask:p,sigsetsize:z",
	[__NR_signalfd] = "fd:f,mask:p,sizemask:z",
	[__NR_timerfd_create] = "clockid:k,flags:u",
	[__NR_eventfd] = "initval:u",
	[__NR_fallocate] = "fd:f,mode:u,offset:l,len:l",
	[__NR_timerfd_settime] = "fd:f,flags:u,new_value:p,old_value:p",
	[__NR_timerfd_gettime] = "fd:f,curr_value:p",
	[__NR_accept4] = "-,addr:p,addrlen:p,flags:T",
	[__NR_signalfd4] = "fd:f,mask:p,sizemask:z,flags:u",
	[__NR_eventfd2] = "initval:u,flags:u",
	[__NR_epoll_create1] = "flags:u",
	[__NR_dup3] = "oldfd:f,newfd:f,flags:o",
	[__NR_pipe2] = "pipefd:p,flags:o",
	[__NR_inotify_init1] = "flags:u",
	[__NR_preadv] = "fd:f,iov:p,iovcnt:d,pos_l:z,pos_h:z",
	[__NR_pwritev] = "fd:f,iov:p,iovcnt:d,pos_l:z,pos_h:z",
	[__NR_perf_event_open] = "attr:p,pid:P,cpu:d,group_fd:f,flags:u",
	[__NR_recvmmsg] = "fd:f,msgvec:p,vlen:u,flags:u,timeout:p",
	[__NR_fanotify_init] = "flags:u,event_f_flags:o",
	[__NR_prlimit64] = "pid:P,resource:R,new_limit:p,old_limit:p",
	[__NR_open_by_handle_at] = "mount_fd:f,handle:p,flags:o",
	[__NR_clock_adjtime] = "clockid:k,buf:p",
	[__NR_syncfs] = "fd:f",
	[__NR_sendmmsg] = "fd:f,msgvec:p,vlen:u,flags:u",
	[__NR_setns] = "fd:f,nstype:c",
	[__NR_getcpu] = "cpu:p,node:p,tcache:p",
	[__NR_process_vm_readv] = "pid:P,local_iov:p,liovcnt:z,remote_iov:p,riovcnt:z,flags:u",
	[__NR_process_vm_writev] = "pid:P,local_iov:p,liovcnt:z,remote_iov:p,riovcnt:z,flags:u",
	[__NR_kcmp] = "pid1:P,pid2:P,type:d,idx1:z,idx2:z",
	[__NR_finit_module] = "fd:f,param_values:p,flags:u",
	[__NR_sched_setattr] = "pid:P,attr:p,flags:u",
	[__NR_sched_getattr] = "pid:P,attr:p,size:u,flags:u",
	[__NR_seccomp] = "operation:d,flags:u,args:p",
	[__NR_getrandom] = "buf:p,buflen:z,flags:u",
	[__NR_memfd_create] = "name:p,flags:u",
	[__NR_kexec_file_load] = "kernel_fd:f,initrd_fd:f,cmdline_len:z,cmdline:p,flags:z",
	[__NR_bpf] = "cmd:d,attr:p,size:u",
	[__NR_userfaultfd] = "flags:u",
	[__NR_membarrier] = "cmd:d,flags:u,cpu_id:d",
	[__NR_mlock2] = "addr:p,len:z,flags:u",
	[__NR_copy_file_range] = "fd_in:f,off_in:p,fd_out:f,off_out:p,len:z,flags:u",
	[__NR_preadv2] = "fd:f,iov:p,iovcnt:d,pos_l:z,pos_h:z,flags:u",
	[__NR_pwritev2] = "fd:f,iov:p,iovcnt:d,pos_l:z,pos_h:z,flags:u",
	[__NR_pkey_mprotect] = "addr:p,len:z,prot:r,pkey:d",
	[__NR_pkey_alloc] = "flags:u,access_rights:u",
	[__NR_pkey_free] = "pkey:d",
	[__NR_io_pgetevents] = "ctx_id:z,min_nr:l,nr:l,events:p,timeout:p,usig:p",
	[__NR_rseq] = "rseq:p,rseq_len:u,flags:u,sig:u",
	[__NR_io_uring_setup] = "entries:u,params:p",
	[__NR_io_uring_enter] = "fd:f,to_submit:u,min_complete:u,flags:u,sig:p,sigsz:z",
	[__NR_io_uring_register] = "fd:f,opcode:u,arg:p,nr_args:u",
	[__NR_fsopen] = "fsname:p,flags:u",
	[__NR_fsconfig] = "fd:f,cmd:u,key:p,value:p,aux:d",
	[__NR_fsmount] = "fs_fd:f,flags:u,attr_flags:u",
	[__NR_pidfd_open] = "pid:P,flags:u",
	[__NR_clone3] = "cl_args:p,size:z",
	[__NR_close_range] = "first:u,last:u,flags:u",
	[__NR_pidfd_getfd] = "pidfd:f,targetfd:d,flags:u",
	[__NR_process_madvise] = "pidfd:f,iovec:p,vlen:z,advice:a,flags:u",
	[__NR_epoll_pwait2] = "epfd:f,events:p,maxevents:d,timeout:p,sigmask:p,sigsetsize:z",
	[__NR_quotactl_fd] = "fd:f,cmd:z,id:d,addr:p",
	[__NR_landlock_create_ruleset] = "attr:p,size:z,flags:u",
	[__NR_landlock_add_rule] = "ruleset_fd:f,rule_type:d,rule_attr:p,flags:u",
	[__NR_landlock_restrict_self] = "ruleset_fd:f,flags:u",
	[__NR_memfd_secret] = "flags:u",
	[__NR_process_mrelease] = "pidfd:f,flags:u",
	[__NR_futex_waitv] = "waiters:p,nr_futexes:u,flags:u,timeout:p,clockid:k",
	[__NR_set_mempolicy_home_node] = "start:p,len:z,home_node:z,flags:z",
	[__NR_cachestat] = "fd:f,cstat_range:p,cstat:p,flags:u",
	[__NR_map_shadow_stack] = "addr:p,size:z,flags:u",
	[__NR_futex_wake] = "uaddr:p,mask:z,nr:d,flags:u",
	[__NR_mseal] = "addr:p,len:z,flags:z",
	/* Calls on paths that the rules do not mediate by path: the path
	 * pointers are not read. */
	[__NR_uselib] = "library:p",
	[__NR_ustat] = "dev:u,ubuf:p",
	[__NR_sysfs] = "option:d,arg1:z,arg2:z",
	[__NR_pivot_root] = "new_root:p,put_old:p",
	[__NR__sysctl] = "args:p",
	[__NR_chroot] = "path:p",
	[__NR_acct] = "filename:p",
	[__NR_mount] = "source:p,target:p,filesystemtype:p,mountflags:z,data:p",
	[__NR_umount2] = "target:p,flags:u",
	[__NR_swapon] = "path:p,swapflags:u",
	[__NR_swapoff] = "path:p",
	[__NR_set_thread_area] = "u_info:p",
	[__NR_get_thread_area] = "u_info:p",
	[__NR_lookup_dcookie] = "cookie:z,buffer:p,len:z",
	[__NR_name_to_handle_at] = "dirfd:f,pathname:p,handle:p,mount_id:p,flags:u",
	[__NR_open_tree] = "dfd:f,filename:p,flags:u",
	[__NR_move_mount] = "from_dfd:f,from_pathname:p,to_dfd:f,to_pathname:p,flags:u",
	[__NR_fspick] = "dfd:f,path:p,flags:u",
	[__NR_mount_setattr] = "dfd:f,path:p,flags:u,uattr:p,usize:z",
	[NR_futex_wait] = "uaddr:p,val:z,mask:z,flags:u,timeout:p,clockid:k",
	[NR_futex_requeue] = "waiters:p,flags:u,nr_wake:d,nr_requeue:d",
	[NR_statmount] = "req:p,buf:p,bufsize:z,flags:u",
	[NR_listmount] = "req:p,mnt_ids:p,nr_mnt_ids:z,flags:u",
	[NR_lsm_get_self_attr] = "attr:u,ctx:p,size:p,flags:u",
	[NR_lsm_set_self_attr] = "attr:u,ctx:p,size:u,flags:u",
	[NR_lsm_list_modules] = "ids:p,size:p,flags:u",
	[NR_setxattrat] = "dfd:f,pathname:p,at_flags:u,name:p,uargs:p,usize:z",
	[NR_getxattrat] = "dfd:f,pathname:p,at_flags:u,name:p,uargs:p,usize:z",
	[NR_listxattrat] = "dfd:f,pathname:p,at_flags:u,list:p,size:z",
	[NR_removexattrat] = "dfd:f,pathname:p,at_flags:u,name:p",
	[NR_open_tree_attr] = "dfd:f,filename:p,flags:u,uattr:p,usize:z",
	[NR_file_getattr] = "dfd:f,filename:p,ufattr:p,usize:z,at_flags:u",
	[NR_file_setattr] = "dfd:f,filename:p,ufattr:p,usize:z,at_flags:u",
};

/*
 * The arguments of path, exec and address calls that record.c does not
 * write itself (it writes their paths, dirfds, addresses, and the open
 * flags and mode): "-" for each register it writes.  Types as above,
 * and: t AT_* flags   D unlinkat's flags   E faccessat2's flags
 *   K access mode (R_OK...)   N rename flags   G MSG_* flags.
 */
static const char *const extras[] = {
	[__NR_open] = "", [__NR_openat] = "", [__NR_creat] = "",
	[__NR_openat2] = "-,-,how:p,size:z",
	[__NR_stat] = "-,statbuf:p",
	[__NR_lstat] = "-,statbuf:p",
	[__NR_newfstatat] = "-,-,statbuf:p,flags:t",
	[__NR_statx] = "-,-,flags:t,mask:u,statxbuf:p",
	[__NR_statfs] = "-,buf:p",
	[__NR_access] = "-,mode:K",
	[__NR_faccessat] = "-,-,mode:K",
	[__NR_faccessat2] = "-,-,mode:K,flags:E",
	[__NR_truncate] = "-,length:l",
	[__NR_chdir] = "",
	[__NR_rename] = "", [__NR_renameat] = "",
	[__NR_renameat2] = "-,-,-,-,flags:N",
	[__NR_mkdir] = "-,mode:m",
	[__NR_mkdirat] = "-,-,mode:m",
	[__NR_mknod] = "-,mode:m,dev:z",
	[__NR_mknodat] = "-,-,mode:m,dev:z",
	[__NR_rmdir] = "", [__NR_unlink] = "",
	[__NR_unlinkat] = "-,-,flags:D",
	[__NR_link] = "",
	[__NR_linkat] = "-,-,-,-,flags:t",
	[__NR_symlink] = "", [__NR_symlinkat] = "",
	[__NR_readlink] = "-,buf:p,bufsiz:z",
	[__NR_readlinkat] = "-,-,buf:p,bufsiz:z",
	[__NR_chmod] = "-,mode:m",
	[__NR_fchmod] = "-,mode:m",
	[__NR_fchmodat] = "-,-,mode:m",
	[NR_fchmodat2] = "-,-,mode:m,flags:t",
	[__NR_chown] = "-,owner:d,group:d",
	[__NR_lchown] = "-,owner:d,group:d",
	[__NR_fchown] = "-,owner:d,group:d",
	[__NR_fchownat] = "-,-,owner:d,group:d,flags:t",
	[__NR_utime] = "-,times:p",
	[__NR_utimes] = "-,times:p",
	[__NR_futimesat] = "-,-,times:p",
	[__NR_utimensat] = "-,-,times:p,flags:t",
	[__NR_setxattr] = "-,name:p,value:p,size:z,flags:u",
	[__NR_lsetxattr] = "-,name:p,value:p,size:z,flags:u",
	[__NR_fsetxattr] = "-,name:p,value:p,size:z,flags:u",
	[__NR_getxattr] = "-,name:p,value:p,size:z",
	[__NR_lgetxattr] = "-,name:p,value:p,size:z",
	[__NR_listxattr] = "-,list:p,size:z",
	[__NR_llistxattr] = "-,list:p,size:z",
	[__NR_removexattr] = "-,name:p",
	[__NR_lremovexattr] = "-,name:p",
	[__NR_fremovexattr] = "-,name:p",
	[__NR_inotify_add_watch] = "fd:f,-,mask:u",
	[__NR_fanotify_mark] = "fanotify_fd:f,flags:u,mask:z",
	[__NR_ioctl] = "-,-,arg:p",
	[__NR_execve] = "-,argv:p,envp:p",
	[__NR_execveat] = "-,-,argv:p,envp:p,flags:t",
	[__NR_connect] = "-,-,addrlen:u",
	[__NR_bind] = "-,-,addrlen:u",
	[__NR_sendto] = "-,buf:p,len:z,flags:G,-,addrlen:u",
	[__NR_sendmsg] = "-,msg:p,flags:G",
	[__NR_sendmmsg] = "-,msgvec:p,vlen:u,flags:G",
};

struct val_name {
	uint64_t val;
	const char *name;
};

static const char *val_lookup(const struct val_name *t, size_t n, uint64_t v)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].val == v)
			return t[i].name;
	return NULL;
}

#define VAL(t, v) val_lookup((t), ARRAY_SIZE(t), (v))

/* A name from table t, or the number (signed) when it names nothing. */
static void put_enum(struct audit_rec *r, const char *key,
		     const struct val_name *t, size_t n, int64_t v)
{
	const char *name = val_lookup(t, n, (uint64_t)v);

	if (name)
		audit_str(r, key, name);
	else
		audit_int(r, key, v);
}

#define ENUM(r, k, t, v) put_enum((r), (k), (t), ARRAY_SIZE(t), (v))

/* Bits by name joined with '|', the rest in hex after them, "0" for none;
 * first (may be NULL) starts the list. */
static void put_bits(struct audit_rec *r, const char *key,
		     const struct val_name *t, size_t n, uint64_t v,
		     const char *first)
{
	char buf[512];
	size_t off = 0;

	buf[0] = '\0';
	if (first)
		off = (size_t)snprintf(buf, sizeof(buf), "%s", first);
	for (size_t i = 0; i < n && off < sizeof(buf); i++) {
		if (t[i].val && (v & t[i].val) == t[i].val) {
			off += (size_t)snprintf(buf + off, sizeof(buf) - off,
						"%s%s", off ? "|" : "", t[i].name);
			v &= ~t[i].val;
		}
	}
	if (!v && !off)
		snprintf(buf, sizeof(buf), "0");
	else if (v && off < sizeof(buf))
		snprintf(buf + off, sizeof(buf) - off, off ? "|0x%llx" : "0x%llx",
			 (unsigned long long)v);
	audit_str(r, key, buf);
}

#define BITS(r, k, t, v, f) put_bits((r), (k), (t), ARRAY_SIZE(t), (v), (f))

static const struct val_name at_flags[] = {
	{ 0x100, "AT_SYMLINK_NOFOLLOW" }, { 0x400, "AT_SYMLINK_FOLLOW" },
	{ 0x800, "AT_NO_AUTOMOUNT" }, { 0x1000, "AT_EMPTY_PATH" },
	{ 0x2000, "AT_STATX_FORCE_SYNC" }, { 0x4000, "AT_STATX_DONT_SYNC" },
	{ 0x8000, "AT_RECURSIVE" },
};

static const struct val_name unlink_flags[] = {
	{ 0x200, "AT_REMOVEDIR" },
};

static const struct val_name access_flags[] = {
	{ 0x200, "AT_EACCESS" }, { 0x100, "AT_SYMLINK_NOFOLLOW" },
	{ 0x1000, "AT_EMPTY_PATH" },
};

static const struct val_name access_mode[] = {
	{ 4, "R_OK" }, { 2, "W_OK" }, { 1, "X_OK" },
};

static const struct val_name rename_flags[] = {
	{ 1, "RENAME_NOREPLACE" }, { 2, "RENAME_EXCHANGE" },
	{ 4, "RENAME_WHITEOUT" },
};

static const struct val_name msg_flags[] = {
	{ 0x1, "MSG_OOB" }, { 0x2, "MSG_PEEK" }, { 0x4, "MSG_DONTROUTE" },
	{ 0x8, "MSG_CTRUNC" }, { 0x10, "MSG_PROXY" }, { 0x20, "MSG_TRUNC" },
	{ 0x40, "MSG_DONTWAIT" }, { 0x80, "MSG_EOR" }, { 0x100, "MSG_WAITALL" },
	{ 0x200, "MSG_FIN" }, { 0x400, "MSG_SYN" }, { 0x800, "MSG_CONFIRM" },
	{ 0x1000, "MSG_RST" }, { 0x2000, "MSG_ERRQUEUE" },
	{ 0x4000, "MSG_NOSIGNAL" }, { 0x8000, "MSG_MORE" },
	{ 0x10000, "MSG_WAITFORONE" }, { 0x40000, "MSG_BATCH" },
	{ 0x4000000, "MSG_ZEROCOPY" }, { 0x20000000, "MSG_FASTOPEN" },
	{ 0x40000000, "MSG_CMSG_CLOEXEC" },
};

static const struct val_name whence[] = {
	{ 0, "SEEK_SET" }, { 1, "SEEK_CUR" }, { 2, "SEEK_END" },
	{ 3, "SEEK_DATA" }, { 4, "SEEK_HOLE" },
};

static const struct val_name prot[] = {
	{ 0x1, "PROT_READ" }, { 0x2, "PROT_WRITE" }, { 0x4, "PROT_EXEC" },
	{ 0x8, "PROT_SEM" }, { 0x01000000, "PROT_GROWSDOWN" },
	{ 0x02000000, "PROT_GROWSUP" },
};

static const struct val_name map_type[] = {
	{ 1, "MAP_SHARED" }, { 2, "MAP_PRIVATE" }, { 3, "MAP_SHARED_VALIDATE" },
};

static const struct val_name map_flags[] = {
	{ 0x10, "MAP_FIXED" }, { 0x20, "MAP_ANONYMOUS" }, { 0x40, "MAP_32BIT" },
	{ 0x100, "MAP_GROWSDOWN" }, { 0x800, "MAP_DENYWRITE" },
	{ 0x1000, "MAP_EXECUTABLE" }, { 0x2000, "MAP_LOCKED" },
	{ 0x4000, "MAP_NORESERVE" }, { 0x8000, "MAP_POPULATE" },
	{ 0x10000, "MAP_NONBLOCK" }, { 0x20000, "MAP_STACK" },
	{ 0x40000, "MAP_HUGETLB" }, { 0x80000, "MAP_SYNC" },
	{ 0x100000, "MAP_FIXED_NOREPLACE" },
};

static const struct val_name madv[] = {
	{ 0, "MADV_NORMAL" }, { 1, "MADV_RANDOM" }, { 2, "MADV_SEQUENTIAL" },
	{ 3, "MADV_WILLNEED" }, { 4, "MADV_DONTNEED" }, { 8, "MADV_FREE" },
	{ 9, "MADV_REMOVE" }, { 10, "MADV_DONTFORK" }, { 11, "MADV_DOFORK" },
	{ 12, "MADV_MERGEABLE" }, { 13, "MADV_UNMERGEABLE" },
	{ 14, "MADV_HUGEPAGE" }, { 15, "MADV_NOHUGEPAGE" },
	{ 16, "MADV_DONTDUMP" }, { 17, "MADV_DODUMP" },
	{ 18, "MADV_WIPEONFORK" }, { 19, "MADV_KEEPONFORK" },
	{ 20, "MADV_COLD" }, { 21, "MADV_PAGEOUT" },
	{ 22, "MADV_POPULATE_READ" }, { 23, "MADV_POPULATE_WRITE" },
	{ 24, "MADV_DONTNEED_LOCKED" }, { 25, "MADV_COLLAPSE" },
	{ 100, "MADV_HWPOISON" }, { 101, "MADV_SOFT_OFFLINE" },
};

static const struct val_name sig_how[] = {
	{ 0, "SIG_BLOCK" }, { 1, "SIG_UNBLOCK" }, { 2, "SIG_SETMASK" },
};

static const struct val_name fcntl_cmd[] = {
	{ 0, "F_DUPFD" }, { 1, "F_GETFD" }, { 2, "F_SETFD" }, { 3, "F_GETFL" },
	{ 4, "F_SETFL" }, { 5, "F_GETLK" }, { 6, "F_SETLK" }, { 7, "F_SETLKW" },
	{ 8, "F_SETOWN" }, { 9, "F_GETOWN" }, { 10, "F_SETSIG" },
	{ 11, "F_GETSIG" }, { 15, "F_SETOWN_EX" }, { 16, "F_GETOWN_EX" },
	{ 17, "F_GETOWNER_UIDS" }, { 36, "F_OFD_GETLK" },
	{ 37, "F_OFD_SETLK" }, { 38, "F_OFD_SETLKW" }, { 1024, "F_SETLEASE" },
	{ 1025, "F_GETLEASE" }, { 1026, "F_NOTIFY" }, { 1027, "F_DUPFD_QUERY" },
	{ 1030, "F_DUPFD_CLOEXEC" }, { 1031, "F_SETPIPE_SZ" },
	{ 1032, "F_GETPIPE_SZ" }, { 1033, "F_ADD_SEALS" },
	{ 1034, "F_GET_SEALS" }, { 1035, "F_GET_RW_HINT" },
	{ 1036, "F_SET_RW_HINT" }, { 1037, "F_GET_FILE_RW_HINT" },
	{ 1038, "F_SET_FILE_RW_HINT" },
};

static const struct val_name prctl_opt[] = {
	{ 1, "PR_SET_PDEATHSIG" }, { 2, "PR_GET_PDEATHSIG" },
	{ 3, "PR_GET_DUMPABLE" }, { 4, "PR_SET_DUMPABLE" },
	{ 5, "PR_GET_UNALIGN" }, { 6, "PR_SET_UNALIGN" },
	{ 7, "PR_GET_KEEPCAPS" }, { 8, "PR_SET_KEEPCAPS" },
	{ 9, "PR_GET_FPEMU" }, { 10, "PR_SET_FPEMU" }, { 11, "PR_GET_FPEXC" },
	{ 12, "PR_SET_FPEXC" }, { 13, "PR_GET_TIMING" }, { 14, "PR_SET_TIMING" },
	{ 15, "PR_SET_NAME" }, { 16, "PR_GET_NAME" }, { 19, "PR_GET_ENDIAN" },
	{ 20, "PR_SET_ENDIAN" }, { 21, "PR_GET_SECCOMP" },
	{ 22, "PR_SET_SECCOMP" }, { 23, "PR_CAPBSET_READ" },
	{ 24, "PR_CAPBSET_DROP" }, { 25, "PR_GET_TSC" }, { 26, "PR_SET_TSC" },
	{ 27, "PR_GET_SECUREBITS" }, { 28, "PR_SET_SECUREBITS" },
	{ 29, "PR_SET_TIMERSLACK" }, { 30, "PR_GET_TIMERSLACK" },
	{ 31, "PR_TASK_PERF_EVENTS_DISABLE" },
	{ 32, "PR_TASK_PERF_EVENTS_ENABLE" }, { 33, "PR_MCE_KILL" },
	{ 34, "PR_MCE_KILL_GET" }, { 35, "PR_SET_MM" },
	{ 36, "PR_SET_CHILD_SUBREAPER" }, { 37, "PR_GET_CHILD_SUBREAPER" },
	{ 38, "PR_SET_NO_NEW_PRIVS" }, { 39, "PR_GET_NO_NEW_PRIVS" },
	{ 40, "PR_GET_TID_ADDRESS" }, { 41, "PR_SET_THP_DISABLE" },
	{ 42, "PR_GET_THP_DISABLE" }, { 45, "PR_SET_FP_MODE" },
	{ 46, "PR_GET_FP_MODE" }, { 47, "PR_CAP_AMBIENT" },
	{ 52, "PR_GET_SPECULATION_CTRL" }, { 53, "PR_SET_SPECULATION_CTRL" },
	{ 55, "PR_SET_TAGGED_ADDR_CTRL" }, { 56, "PR_GET_TAGGED_ADDR_CTRL" },
	{ 57, "PR_SET_IO_FLUSHER" }, { 58, "PR_GET_IO_FLUSHER" },
	{ 59, "PR_SET_SYSCALL_USER_DISPATCH" }, { 62, "PR_SCHED_CORE" },
	{ 65, "PR_SET_MDWE" }, { 66, "PR_GET_MDWE" },
	{ 0x59616d61, "PR_SET_PTRACER" }, { 0x53564d41, "PR_SET_VMA" },
	{ 0x41555856, "PR_GET_AUXV" },
};

static const struct val_name futex_cmd[] = {
	{ 0, "FUTEX_WAIT" }, { 1, "FUTEX_WAKE" }, { 2, "FUTEX_FD" },
	{ 3, "FUTEX_REQUEUE" }, { 4, "FUTEX_CMP_REQUEUE" },
	{ 5, "FUTEX_WAKE_OP" }, { 6, "FUTEX_LOCK_PI" },
	{ 7, "FUTEX_UNLOCK_PI" }, { 8, "FUTEX_TRYLOCK_PI" },
	{ 9, "FUTEX_WAIT_BITSET" }, { 10, "FUTEX_WAKE_BITSET" },
	{ 11, "FUTEX_WAIT_REQUEUE_PI" }, { 12, "FUTEX_CMP_REQUEUE_PI" },
	{ 13, "FUTEX_LOCK_PI2" },
};

static const struct val_name futex_flags[] = {
	{ 128, "FUTEX_PRIVATE_FLAG" }, { 256, "FUTEX_CLOCK_REALTIME" },
};

static const struct val_name clocks[] = {
	{ 0, "CLOCK_REALTIME" }, { 1, "CLOCK_MONOTONIC" },
	{ 2, "CLOCK_PROCESS_CPUTIME_ID" }, { 3, "CLOCK_THREAD_CPUTIME_ID" },
	{ 4, "CLOCK_MONOTONIC_RAW" }, { 5, "CLOCK_REALTIME_COARSE" },
	{ 6, "CLOCK_MONOTONIC_COARSE" }, { 7, "CLOCK_BOOTTIME" },
	{ 8, "CLOCK_REALTIME_ALARM" }, { 9, "CLOCK_BOOTTIME_ALARM" },
	{ 11, "CLOCK_TAI" },
};

static const struct val_name rlimits[] = {
	{ 0, "RLIMIT_CPU" }, { 1, "RLIMIT_FSIZE" }, { 2, "RLIMIT_DATA" },
	{ 3, "RLIMIT_STACK" }, { 4, "RLIMIT_CORE" }, { 5, "RLIMIT_RSS" },
	{ 6, "RLIMIT_NPROC" }, { 7, "RLIMIT_NOFILE" }, { 8, "RLIMIT_MEMLOCK" },
	{ 9, "RLIMIT_AS" }, { 10, "RLIMIT_LOCKS" }, { 11, "RLIMIT_SIGPENDING" },
	{ 12, "RLIMIT_MSGQUEUE" }, { 13, "RLIMIT_NICE" }, { 14, "RLIMIT_RTPRIO" },
	{ 15, "RLIMIT_RTTIME" },
};

static const struct val_name families[] = {
	{ AF_UNSPEC, "AF_UNSPEC" }, { AF_UNIX, "AF_UNIX" },
	{ AF_INET, "AF_INET" }, { AF_INET6, "AF_INET6" },
	{ AF_NETLINK, "AF_NETLINK" }, { AF_PACKET, "AF_PACKET" },
	{ AF_BLUETOOTH, "AF_BLUETOOTH" }, { AF_VSOCK, "AF_VSOCK" },
	{ AF_ALG, "AF_ALG" }, { AF_CAN, "AF_CAN" }, { AF_TIPC, "AF_TIPC" },
	{ AF_XDP, "AF_XDP" }, { AF_KEY, "AF_KEY" }, { AF_RDS, "AF_RDS" },
	{ AF_AX25, "AF_AX25" }, { AF_IPX, "AF_IPX" },
	{ AF_APPLETALK, "AF_APPLETALK" }, { AF_X25, "AF_X25" },
	{ AF_DECnet, "AF_DECnet" }, { AF_ROSE, "AF_ROSE" },
	{ AF_IRDA, "AF_IRDA" }, { AF_PPPOX, "AF_PPPOX" },
	{ AF_LLC, "AF_LLC" }, { AF_IB, "AF_IB" }, { AF_MPLS, "AF_MPLS" },
	{ AF_ISDN, "AF_ISDN" }, { AF_PHONET, "AF_PHONET" },
	{ AF_IEEE802154, "AF_IEEE802154" }, { AF_CAIF, "AF_CAIF" },
	{ AF_NFC, "AF_NFC" }, { AF_KCM, "AF_KCM" }, { AF_QIPCRTR, "AF_QIPCRTR" },
	{ AF_SMC, "AF_SMC" }, { AF_MCTP, "AF_MCTP" },
};

static const struct val_name sock_types[] = {
	{ SOCK_STREAM, "SOCK_STREAM" }, { SOCK_DGRAM, "SOCK_DGRAM" },
	{ SOCK_RAW, "SOCK_RAW" }, { SOCK_RDM, "SOCK_RDM" },
	{ SOCK_SEQPACKET, "SOCK_SEQPACKET" }, { SOCK_DCCP, "SOCK_DCCP" },
	{ SOCK_PACKET, "SOCK_PACKET" },
};

static const struct val_name sock_flags[] = {
	{ SOCK_NONBLOCK, "SOCK_NONBLOCK" }, { SOCK_CLOEXEC, "SOCK_CLOEXEC" },
};

static const struct val_name clone_flags[] = {
	{ 0x00000100, "CLONE_VM" }, { 0x00000200, "CLONE_FS" },
	{ 0x00000400, "CLONE_FILES" }, { 0x00000800, "CLONE_SIGHAND" },
	{ 0x00001000, "CLONE_PIDFD" }, { 0x00002000, "CLONE_PTRACE" },
	{ 0x00004000, "CLONE_VFORK" }, { 0x00008000, "CLONE_PARENT" },
	{ 0x00010000, "CLONE_THREAD" }, { 0x00020000, "CLONE_NEWNS" },
	{ 0x00040000, "CLONE_SYSVSEM" }, { 0x00080000, "CLONE_SETTLS" },
	{ 0x00100000, "CLONE_PARENT_SETTID" },
	{ 0x00200000, "CLONE_CHILD_CLEARTID" },
	{ 0x00400000, "CLONE_DETACHED" }, { 0x00800000, "CLONE_UNTRACED" },
	{ 0x01000000, "CLONE_CHILD_SETTID" }, { 0x02000000, "CLONE_NEWCGROUP" },
	{ 0x04000000, "CLONE_NEWUTS" }, { 0x08000000, "CLONE_NEWIPC" },
	{ 0x10000000, "CLONE_NEWUSER" }, { 0x20000000, "CLONE_NEWPID" },
	{ 0x40000000, "CLONE_NEWNET" }, { 0x80000000, "CLONE_IO" },
};

static const struct val_name open_bits[] = {
	{ O_CREAT, "O_CREAT" }, { O_EXCL, "O_EXCL" }, { O_NOCTTY, "O_NOCTTY" },
	{ O_TRUNC, "O_TRUNC" }, { O_APPEND, "O_APPEND" },
	{ O_NONBLOCK, "O_NONBLOCK" }, { O_SYNC, "O_SYNC" },
	{ O_DSYNC, "O_DSYNC" }, { O_DIRECT, "O_DIRECT" },
	{ 0100000, "O_LARGEFILE" }, { O_NOFOLLOW, "O_NOFOLLOW" },
	{ O_NOATIME, "O_NOATIME" }, { O_CLOEXEC, "O_CLOEXEC" },
	{ O_PATH, "O_PATH" }, { O_TMPFILE, "O_TMPFILE" },
	{ O_DIRECTORY, "O_DIRECTORY" },
};

/* Requests a policy names (rules_fileattr_cmd() and the default policy's
 * TIOCSTI, TIOCLINUX, FIFREEZE, FITHAW) and the common tty, fd, socket
 * and file system ones. */
static const struct val_name ioctls[] = {
	{ TCGETS, "TCGETS" }, { TCSETS, "TCSETS" }, { TCSETSW, "TCSETSW" },
	{ TCSETSF, "TCSETSF" }, { TCGETA, "TCGETA" }, { TCSETA, "TCSETA" },
	{ TCSETAW, "TCSETAW" }, { TCSETAF, "TCSETAF" }, { TCSBRK, "TCSBRK" },
	{ TCXONC, "TCXONC" }, { TCFLSH, "TCFLSH" }, { TIOCEXCL, "TIOCEXCL" },
	{ TIOCNXCL, "TIOCNXCL" }, { TIOCSCTTY, "TIOCSCTTY" },
	{ TIOCGPGRP, "TIOCGPGRP" }, { TIOCSPGRP, "TIOCSPGRP" },
	{ TIOCOUTQ, "TIOCOUTQ" }, { TIOCSTI, "TIOCSTI" },
	{ TIOCGWINSZ, "TIOCGWINSZ" }, { TIOCSWINSZ, "TIOCSWINSZ" },
	{ TIOCMGET, "TIOCMGET" }, { TIOCMBIS, "TIOCMBIS" },
	{ TIOCMBIC, "TIOCMBIC" }, { TIOCMSET, "TIOCMSET" },
	{ TIOCGSOFTCAR, "TIOCGSOFTCAR" }, { TIOCSSOFTCAR, "TIOCSSOFTCAR" },
	{ FIONREAD, "FIONREAD" }, { TIOCLINUX, "TIOCLINUX" },
	{ TIOCCONS, "TIOCCONS" }, { TIOCGSERIAL, "TIOCGSERIAL" },
	{ TIOCSSERIAL, "TIOCSSERIAL" }, { TIOCPKT, "TIOCPKT" },
	{ FIONBIO, "FIONBIO" }, { TIOCNOTTY, "TIOCNOTTY" },
	{ TIOCSETD, "TIOCSETD" }, { TIOCGETD, "TIOCGETD" },
	{ TCSBRKP, "TCSBRKP" }, { TIOCSBRK, "TIOCSBRK" },
	{ TIOCCBRK, "TIOCCBRK" }, { TIOCGSID, "TIOCGSID" },
	{ TCGETS2, "TCGETS2" }, { TCSETS2, "TCSETS2" },
	{ TIOCGPTN, "TIOCGPTN" }, { TIOCSPTLCK, "TIOCSPTLCK" },
	{ TIOCGDEV, "TIOCGDEV" }, { TIOCSIG, "TIOCSIG" },
	{ TIOCVHANGUP, "TIOCVHANGUP" }, { TIOCGPKT, "TIOCGPKT" },
	{ TIOCGPTLCK, "TIOCGPTLCK" }, { TIOCGEXCL, "TIOCGEXCL" },
	{ TIOCGPTPEER, "TIOCGPTPEER" }, { FIONCLEX, "FIONCLEX" },
	{ FIOCLEX, "FIOCLEX" }, { FIOASYNC, "FIOASYNC" },
	{ TIOCSERCONFIG, "TIOCSERCONFIG" }, { TIOCSERGETLSR, "TIOCSERGETLSR" },
	{ FIOQSIZE, "FIOQSIZE" }, { FIOSETOWN, "FIOSETOWN" },
	{ FIOGETOWN, "FIOGETOWN" },
	{ SIOCGSTAMP_OLD, "SIOCGSTAMP" }, { SIOCGSTAMPNS_OLD, "SIOCGSTAMPNS" },
	{ SIOCATMARK, "SIOCATMARK" }, { SIOCGIFNAME, "SIOCGIFNAME" },
	{ SIOCGIFCONF, "SIOCGIFCONF" }, { SIOCGIFFLAGS, "SIOCGIFFLAGS" },
	{ SIOCSIFFLAGS, "SIOCSIFFLAGS" }, { SIOCGIFADDR, "SIOCGIFADDR" },
	{ SIOCSIFADDR, "SIOCSIFADDR" }, { SIOCGIFNETMASK, "SIOCGIFNETMASK" },
	{ SIOCGIFMTU, "SIOCGIFMTU" }, { SIOCSIFMTU, "SIOCSIFMTU" },
	{ SIOCGIFHWADDR, "SIOCGIFHWADDR" }, { SIOCGIFINDEX, "SIOCGIFINDEX" },
	{ SIOCADDRT, "SIOCADDRT" }, { SIOCDELRT, "SIOCDELRT" },
	{ SIOCGIFBRDADDR, "SIOCGIFBRDADDR" }, { SIOCETHTOOL, "SIOCETHTOOL" },
	{ FIBMAP, "FIBMAP" }, { FIGETBSZ, "FIGETBSZ" },
	{ FIFREEZE, "FIFREEZE" }, { FITHAW, "FITHAW" }, { FITRIM, "FITRIM" },
	{ FICLONE, "FICLONE" }, { FICLONERANGE, "FICLONERANGE" },
	{ FIDEDUPERANGE, "FIDEDUPERANGE" },
	{ FS_IOC_GETFLAGS, "FS_IOC_GETFLAGS" },
	{ FS_IOC_SETFLAGS, "FS_IOC_SETFLAGS" },
	{ FS_IOC_GETVERSION, "FS_IOC_GETVERSION" },
	{ FS_IOC_SETVERSION, "FS_IOC_SETVERSION" },
	{ FS_IOC_FIEMAP, "FS_IOC_FIEMAP" },
	{ FS_IOC_FSGETXATTR, "FS_IOC_FSGETXATTR" },
	{ FS_IOC_FSSETXATTR, "FS_IOC_FSSETXATTR" },
	{ FS_IOC_GETFSLABEL, "FS_IOC_GETFSLABEL" },
	{ FS_IOC_SETFSLABEL, "FS_IOC_SETFSLABEL" },
	{ FS_IOC32_GETFLAGS, "FS_IOC32_GETFLAGS" },
	{ FS_IOC32_SETFLAGS, "FS_IOC32_SETFLAGS" },
	{ BLKGETSIZE, "BLKGETSIZE" }, { BLKGETSIZE64, "BLKGETSIZE64" },
	{ BLKSSZGET, "BLKSSZGET" }, { BLKROGET, "BLKROGET" },
	{ BLKFLSBUF, "BLKFLSBUF" }, { BLKDISCARD, "BLKDISCARD" },
};

const char *decode_ioctl_name(uint64_t request)
{
	/* The kernel takes the request as an unsigned int.  The requests
	 * the rules decide as an fchmod have their names in rules/. */
	const char *n = VAL(ioctls, (uint32_t)request);

	return n ? n : rules_fileattr_cmd(request);
}

const char *decode_family_name(int family)
{
	return VAL(families, (uint64_t)(uint32_t)family);
}

void decode_add_family(struct audit_rec *r, const char *key, int family)
{
	const char *n = decode_family_name(family);

	if (n)
		audit_str(r, key, n);
	else
		audit_int(r, key, family);
}

void decode_add_sock_type(struct audit_rec *r, const char *key,
			  uint32_t type)
{
	const char *base = VAL(sock_types, type & 0xf);

	if (base)
		BITS(r, key, sock_flags, type & ~0xfu, base);
	else
		BITS(r, key, sock_flags, type, NULL);
}

static void put_signal(struct audit_rec *r, const char *key, int64_t sig)
{
	const char *n = sig > 0 && sig < 65 ? sigabbrev_np((int)sig) : NULL;
	char buf[32];

	if (!n) {
		audit_int(r, key, sig);
		return;
	}
	snprintf(buf, sizeof(buf), "SIG%s", n);
	audit_str(r, key, buf);
}

static void put_clone(struct audit_rec *r, const char *key, uint64_t v,
		      bool with_signal)
{
	char sig[32] = "";
	const char *n;

	/* clone's low byte is the signal sent to the parent at exit. */
	if (with_signal && (v & 0xff)) {
		n = sigabbrev_np((int)(v & 0xff));
		if (n) {
			snprintf(sig, sizeof(sig), "SIG%s", n);
			v &= ~(uint64_t)0xff;
		}
	}
	BITS(r, key, clone_flags, v, sig[0] ? sig : NULL);
}

static void put_ioctl(struct audit_rec *r, const char *key, uint64_t v)
{
	const char *n = decode_ioctl_name(v);
	char nkey[64];

	if (n) {
		audit_str(r, key, n);
		return;
	}
	/* Not known: the number, said to be unknown. */
	audit_str(r, key, "unknown");
	snprintf(nkey, sizeof(nkey), "%s_nr", key);
	audit_uint(r, nkey, (uint32_t)v);
}

static void put_fd(struct audit_rec *r, const char *key, uint64_t v)
{
	if ((int32_t)v == AT_FDCWD)
		audit_str(r, key, "AT_FDCWD");
	else
		audit_int(r, key, (int32_t)v);
}

static void put_mode(struct audit_rec *r, const char *key, uint64_t v)
{
	char m[24];

	snprintf(m, sizeof(m), "0%llo", (unsigned long long)(uint32_t)v);
	audit_str(r, key, m);
}

static void put_open_flags(struct audit_rec *r, const char *key, uint64_t v)
{
	static const char *const acc[] = {
		"O_RDONLY", "O_WRONLY", "O_RDWR", "O_ACCMODE",
	};

	v = (uint32_t)v;
	BITS(r, key, open_bits, v & ~(uint64_t)O_ACCMODE, acc[v & O_ACCMODE]);
}

static void put_mmap_flags(struct audit_rec *r, const char *key, uint64_t v)
{
	const char *type = VAL(map_type, v & 0x3);

	v = (uint32_t)v;
	BITS(r, key, map_flags, type ? v & ~(uint64_t)0x3 : v, type);
}

static void put_futex(struct audit_rec *r, const char *key, uint64_t v)
{
	BITS(r, key, futex_flags, (uint32_t)v & ~0x7fu,
	     VAL(futex_cmd, v & 0x7f));
}

/* One argument of type t under key. */
static void put_arg(struct audit_rec *r, const char *key, char t, uint64_t v)
{
	switch (t) {
	case 'd': audit_int(r, key, (int32_t)v); break;
	case 'u': audit_uint(r, key, (uint32_t)v); break;
	case 'l': audit_int(r, key, (int64_t)v); break;
	case 'z': audit_uint(r, key, v); break;
	case 'p': audit_hex(r, key, v); break;
	case 'f': put_fd(r, key, v); break;
	case 'P': audit_int(r, key, (int32_t)v); break;
	case 'm': put_mode(r, key, v); break;
	case 'S': put_signal(r, key, (int32_t)v); break;
	case 'o': put_open_flags(r, key, v); break;
	case 'W': ENUM(r, key, whence, (int32_t)v); break;
	case 'r': BITS(r, key, prot, (uint32_t)v, NULL); break;
	case 'M': put_mmap_flags(r, key, v); break;
	case 'a': ENUM(r, key, madv, (int32_t)v); break;
	case 'h': ENUM(r, key, sig_how, (int32_t)v); break;
	case 'F': ENUM(r, key, fcntl_cmd, (int32_t)v); break;
	case 'X': ENUM(r, key, prctl_opt, (int32_t)v); break;
	case 'U': put_futex(r, key, v); break;
	case 'k': ENUM(r, key, clocks, (int32_t)v); break;
	case 'R': ENUM(r, key, rlimits, (int32_t)v); break;
	case 'A': decode_add_family(r, key, (int32_t)v); break;
	case 'T': decode_add_sock_type(r, key, (uint32_t)v); break;
	case 'C': put_clone(r, key, v, true); break;
	case 'c': put_clone(r, key, v, false); break;
	case 'I': put_ioctl(r, key, v); break;
	case 't': BITS(r, key, at_flags, (uint32_t)v, NULL); break;
	case 'D': BITS(r, key, unlink_flags, (uint32_t)v, NULL); break;
	case 'E': BITS(r, key, access_flags, (uint32_t)v, NULL); break;
	case 'K': BITS(r, key, access_mode, (uint32_t)v, (uint32_t)v ? NULL : "F_OK"); break;
	case 'N': BITS(r, key, rename_flags, (uint32_t)v, NULL); break;
	case 'G': BITS(r, key, msg_flags, (uint32_t)v, NULL); break;
	default: audit_uint(r, key, v); break;
	}
}

const char *decode_signature(int nr)
{
	if (nr < 0 || (size_t)nr >= ARRAY_SIZE(sigs))
		return NULL;
	return sigs[nr];
}

/* fcntl's third argument by its command: flags or a number. */
static bool put_fcntl_arg(struct audit_rec *r, const __u64 *a)
{
	switch ((int32_t)a[1]) {
	case F_SETFL:
		put_open_flags(r, "arg", a[2]);
		return true;
	case F_SETFD:
		audit_str(r, "arg", a[2] & FD_CLOEXEC ? "FD_CLOEXEC" : "0");
		return true;
	case F_DUPFD:
	case F_DUPFD_CLOEXEC:
		put_fd(r, "arg", a[2]);
		return true;
	case F_GETFD: case F_GETFL: case F_GETOWN: case F_GETSIG:
	case F_GETLEASE: case F_GETPIPE_SZ: case F_GET_SEALS:
		return true;	/* no argument: the register is stale */
	default:
		return false;
	}
}

const char *decode_extra_signature(int nr)
{
	if (nr < 0 || (size_t)nr >= ARRAY_SIZE(extras))
		return NULL;
	return extras[nr];
}

/* The registers of a by signature sig (see sigs[]). */
static void put_args(struct audit_rec *r, int nr, const char *sig,
		     const __u64 *a)
{
	unsigned i = 0;

	for (const char *p = sig; *p && i < 6; i++) {
		const char *colon, *end = strchr(p, ',');
		char key[32];
		size_t len;

		if (!end)
			end = p + strlen(p);
		colon = memchr(p, ':', (size_t)(end - p));
		if (colon && (size_t)(colon - p) < sizeof(key)) {
			len = (size_t)(colon - p);
			memcpy(key, p, len);
			key[len] = '\0';
			if (!(nr == __NR_fcntl && i == 2 && put_fcntl_arg(r, a)))
				put_arg(r, key, colon[1], a[i]);
		}
		p = *end ? end + 1 : end;
	}
}

int decode_args(struct audit_rec *r, int nr, const __u64 *a)
{
	const char *sig = decode_signature(nr);

	if (!sig)
		return -ENOENT;
	put_args(r, nr, sig, a);
	return 0;
}

int decode_extra_args(struct audit_rec *r, int nr, const __u64 *a)
{
	const char *sig = decode_extra_signature(nr);

	if (!sig)
		return -ENOENT;
	put_args(r, nr, sig, a);
	return 0;
}
