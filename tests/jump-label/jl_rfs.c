// SPDX-License-Identifier: GPL-2.0
/*
 * jl_rfs: a module with a jump site of an unpatched kernel's own static
 * key.  Reading its debugfs file "run" calls sock_rps_record_flow() 1000
 * times; the inline test of the exported key rfs_needed in it is patched
 * into this module's text.  User space flips that key through the sysctl
 * net.core.rps_sock_flow_entries.  Nothing of usercopy hardening is
 * involved: see jl-stress.c.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <net/sock.h>

static struct dentry *dir;
static struct sock *sk;

static ssize_t run_read(struct file *file, char __user *buf, size_t count,
			loff_t *ppos)
{
	int i;

	for (i = 0; i < 1000; i++)
		sock_rps_record_flow(sk);
	return 0;
}

static const struct file_operations run_fops = {
	.owner = THIS_MODULE,
	.read = run_read,
};

static int __init jl_rfs_init(void)
{
	/* Never established: the flow table is not touched. */
	sk = kzalloc(sizeof(*sk), GFP_KERNEL);
	if (!sk)
		return -ENOMEM;
	dir = debugfs_create_dir("jl_rfs", NULL);
	debugfs_create_file("run", 0444, dir, NULL, &run_fops);
	return 0;
}

static void __exit jl_rfs_exit(void)
{
	debugfs_remove_recursive(dir);
	kfree(sk);
}

module_init(jl_rfs_init);
module_exit(jl_rfs_exit);
MODULE_DESCRIPTION("Static key stress of an unpatched kernel");
MODULE_LICENSE("GPL");
