// SPDX-License-Identifier: GPL-2.0
/*
 * uc_buggy: a deliberately buggy driver for the usercopy-hardening tests.
 *
 * Its debugfs files copy as many bytes as user space asks for, the way
 * drivers with a missing bounds check do:
 *
 *   slab       read: copy_to_user() from a 64-byte kmalloc object
 *   whitelist  read/write: copy_to_user()/copy_from_user() at the 32-byte
 *              usercopy whitelist of a 128-byte object of the cache
 *              uc_buggy_wl; the rest of the object is secret (0x5a)
 *   flag       read: copy_to_user() from a 96-byte object of uc_buggy_flag,
 *              a cache created with SLAB_USERCOPY (whitelisted whole)
 *   nowl       read: the same from a 96-byte object of uc_buggy_nowl, a
 *              cache without a whitelist (until the admin allows it)
 *   bounce     read/write: copy_to_user_bounce()/copy_from_user_bounce()
 *              at the file offset of the 32-byte name field of the
 *              uc_buggy_nowl object (bytes 32-63); a copy past the field
 *              is refused in every mode
 *   memdup     read: memdup_user() of the reader's buffer (up to 64 bytes),
 *              then copy_to_user() of as much as asked (up to 128) from
 *              that copy: the report names the cache memdup_user() took
 *   stack      read/write: copy_to_user()/copy_from_user() from/to a
 *              32-byte stack buffer (a write past it smashes the stack:
 *              only in enforce mode)
 *   fixed      read: the same from a buffer whose size the compiler knows
 *   irq        write: from a hard interrupt (an hrtimer) that interrupts
 *              the writer, the way tracing reads user memory,
 *              copy_from_user_nofault() 8 bytes into the secret part of
 *              the whitelist object from user address 0; fails with
 *              EFAULT (refused, or nothing to read there)
 *   poke       write a kernel address (hex): reads the byte there and
 *              writes it back, as a stray kernel write would; fails with
 *              EFAULT where the page is read-only
 *   state      read: whether the secret part of the whitelist object and
 *              the stack buffer of the last stack write are intact; write
 *              "reset" to restore them
 *
 * Lengths are capped so that, when the kernel lets a bad copy proceed (log
 * or off mode), it stays inside memory the module owns or may read.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/usercopy_bounce.h>

#define SECRET		0x5a
#define WL_SIZE		128
#define WL_OFFSET	32
#define WL_LEN		32
#define OBJ_SIZE	96	/* of uc_buggy_flag and uc_buggy_nowl */

static struct dentry *dir;
static struct kmem_cache *wl_cache;
static char *wl_obj;
static char *slab_obj;
static struct kmem_cache *flag_cache, *nowl_cache;
static char *flag_obj, *nowl_obj;
static bool stack_written;

static void wl_reset(void)
{
	memset(wl_obj, SECRET, WL_SIZE);
	memset(wl_obj + WL_OFFSET, 'W', WL_LEN);
}

static ssize_t copied(size_t count, unsigned long left)
{
	return left ? -EFAULT : count;
}

static ssize_t slab_read(struct file *file, char __user *buf, size_t count,
			 loff_t *ppos)
{
	count = min_t(size_t, count, 256);
	return copied(count, copy_to_user(buf, slab_obj, count));
}

static ssize_t wl_read(struct file *file, char __user *buf, size_t count,
		       loff_t *ppos)
{
	count = min_t(size_t, count, WL_SIZE - WL_OFFSET);
	return copied(count, copy_to_user(buf, wl_obj + WL_OFFSET, count));
}

static ssize_t wl_write(struct file *file, const char __user *buf,
			size_t count, loff_t *ppos)
{
	if (count > WL_SIZE - WL_OFFSET)
		return -EINVAL;
	return copied(count, copy_from_user(wl_obj + WL_OFFSET, buf, count));
}

/*
 * Reads of up to 128 bytes: past the object, into the free pointer and
 * the next object of the slab, filled by the constructor.
 */
static ssize_t flag_read(struct file *file, char __user *buf, size_t count,
			 loff_t *ppos)
{
	count = min_t(size_t, count, 128);
	return copied(count, copy_to_user(buf, flag_obj, count));
}

static ssize_t nowl_read(struct file *file, char __user *buf, size_t count,
			 loff_t *ppos)
{
	count = min_t(size_t, count, 128);
	return copied(count, copy_to_user(buf, nowl_obj, count));
}

/* The uc_buggy_nowl object as a record: only its name is for user space. */
struct nowl_rec {
	char head[32];
	char name[32];
	char tail[OBJ_SIZE - 64];
};

static ssize_t bounce_read(struct file *file, char __user *buf,
			   size_t count, loff_t *ppos)
{
	struct nowl_rec *rec = (struct nowl_rec *)nowl_obj;

	count = min_t(size_t, count, 128);
	return copied(count, copy_to_user_bounce(buf, rec->name, *ppos, count));
}

static ssize_t bounce_write(struct file *file, const char __user *buf,
			    size_t count, loff_t *ppos)
{
	struct nowl_rec *rec = (struct nowl_rec *)nowl_obj;

	count = min_t(size_t, count, 128);
	return copied(count, copy_from_user_bounce(rec->name, *ppos, buf, count));
}

static ssize_t memdup_read(struct file *file, char __user *buf,
			   size_t count, loff_t *ppos)
{
	char *p = memdup_user(buf, min_t(size_t, count, 64));
	unsigned long left;

	if (IS_ERR(p))
		return PTR_ERR(p);
	count = min_t(size_t, count, 128);
	left = copy_to_user(buf, p, count);
	kfree(p);
	return copied(count, left);
}

static void obj_ctor(void *obj)
{
	memset(obj, SECRET, OBJ_SIZE);
}

/*
 * An object that is not the last of its slab, so that a read past it
 * stays in the slab.  The constructor keeps these caches apart from any
 * other: caches with one are never merged.
 */
static char *obj_alloc(struct kmem_cache *cache)
{
	char *objs[8], *obj = NULL;
	int i, n;

	for (n = 0; n < ARRAY_SIZE(objs); n++) {
		objs[n] = kmem_cache_alloc(cache, GFP_KERNEL);
		if (!objs[n])
			break;
		if (offset_in_page(objs[n]) + 2 * 128 <= PAGE_SIZE) {
			obj = objs[n];
			break;
		}
	}
	for (i = 0; i < n; i++)
		kmem_cache_free(cache, objs[i]);
	return obj;
}

/*
 * Not inlined, so that buf lives in a frame of its own.  The compiler must
 * not see the buffer's size, or check_copy_size() would catch the overrun
 * before the stack check does (that is what the "fixed" file is for).
 */
static noinline ssize_t stack_copy(char __user *ubuf, size_t count)
{
	char buf[32];
	char *p = buf;

	memset(buf, 'S', sizeof(buf));
	OPTIMIZER_HIDE_VAR(p);
	return copied(count, copy_to_user(ubuf, p, count));
}

static ssize_t stack_read(struct file *file, char __user *buf, size_t count,
			  loff_t *ppos)
{
	return stack_copy(buf, min_t(size_t, count, 256));
}

static noinline ssize_t stack_fill(const char __user *ubuf, size_t count)
{
	char buf[32];
	char *p = buf;
	ssize_t ret;

	memset(buf, 'S', sizeof(buf));
	OPTIMIZER_HIDE_VAR(p);
	ret = copied(count, copy_from_user(p, ubuf, count));
	stack_written = memchr_inv(buf, 'S', sizeof(buf)) != NULL;
	return ret;
}

static ssize_t stack_write(struct file *file, const char __user *buf,
			   size_t count, loff_t *ppos)
{
	return stack_fill(buf, min_t(size_t, count, 256));
}

/* The same bug where the compiler knows the size of the buffer. */
static noinline ssize_t fixed_copy(char __user *ubuf, size_t count)
{
	char buf[32];

	memset(buf, 'F', sizeof(buf));
	return copied(count, copy_to_user(ubuf, buf, count));
}

static ssize_t fixed_read(struct file *file, char __user *buf, size_t count,
			  loff_t *ppos)
{
	return fixed_copy(buf, min_t(size_t, count, 256));
}

static DEFINE_MUTEX(irq_lock);
static struct hrtimer irq_timer;
static bool irq_done;
static long irq_ret;

static enum hrtimer_restart irq_copy(struct hrtimer *timer)
{
	irq_ret = copy_from_user_nofault(wl_obj, NULL, 8);
	WRITE_ONCE(irq_done, true);
	return HRTIMER_NORESTART;
}

/*
 * The writer spins on this CPU until the timer fires, so that the
 * interrupt lands on it: the copy must not be blamed on the task it
 * happens to interrupt.  (An idle CPU has no user memory to copy from.)
 */
static ssize_t irq_write(struct file *file, const char __user *buf,
			 size_t count, loff_t *ppos)
{
	mutex_lock(&irq_lock);
	irq_done = false;
	preempt_disable();
	hrtimer_start(&irq_timer, ms_to_ktime(1),
		      HRTIMER_MODE_REL_PINNED_HARD);
	while (!READ_ONCE(irq_done))
		cpu_relax();
	preempt_enable();
	mutex_unlock(&irq_lock);
	return irq_ret ? irq_ret : count;
}

static ssize_t state_read(struct file *file, char __user *buf, size_t count,
			  loff_t *ppos)
{
	char msg[32];
	int i, changed = 0;

	for (i = 0; i < WL_SIZE; i++)
		if ((i < WL_OFFSET || i >= WL_OFFSET + WL_LEN) &&
		    wl_obj[i] != SECRET)
			changed++;
	changed += stack_written;
	if (changed)
		snprintf(msg, sizeof(msg), "corrupted %d\n", changed);
	else
		strscpy(msg, "intact\n", sizeof(msg));
	return simple_read_from_buffer(buf, count, ppos, msg, strlen(msg));
}

static ssize_t state_write(struct file *file, const char __user *buf,
			   size_t count, loff_t *ppos)
{
	char cmd[8] = { };

	if (count >= sizeof(cmd) || copy_from_user(cmd, buf, count))
		return -EINVAL;
	if (!sysfs_streq(cmd, "reset"))
		return -EINVAL;
	wl_reset();
	stack_written = false;
	return count;
}

static ssize_t poke_write(struct file *file, const char __user *buf,
			  size_t count, loff_t *ppos)
{
	unsigned long addr;
	char byte;
	int err;

	err = kstrtoul_from_user(buf, count, 16, &addr);
	if (err)
		return err;
	if (copy_from_kernel_nofault(&byte, (void *)addr, 1))
		return -EFAULT;
	pagefault_disable();
	__put_kernel_nofault((void *)addr, &byte, u8, fault);
	pagefault_enable();
	return count;
fault:
	pagefault_enable();
	return -EFAULT;
}

static const struct file_operations slab_fops = {
	.owner = THIS_MODULE,
	.read = slab_read,
};

static const struct file_operations wl_fops = {
	.owner = THIS_MODULE,
	.read = wl_read,
	.write = wl_write,
};

static const struct file_operations flag_fops = {
	.owner = THIS_MODULE,
	.read = flag_read,
};

static const struct file_operations nowl_fops = {
	.owner = THIS_MODULE,
	.read = nowl_read,
};

static const struct file_operations bounce_fops = {
	.owner = THIS_MODULE,
	.read = bounce_read,
	.write = bounce_write,
};

static const struct file_operations memdup_fops = {
	.owner = THIS_MODULE,
	.read = memdup_read,
};

static const struct file_operations stack_fops = {
	.owner = THIS_MODULE,
	.read = stack_read,
	.write = stack_write,
};

static const struct file_operations fixed_fops = {
	.owner = THIS_MODULE,
	.read = fixed_read,
};

static const struct file_operations irq_fops = {
	.owner = THIS_MODULE,
	.write = irq_write,
};

static const struct file_operations poke_fops = {
	.owner = THIS_MODULE,
	.write = poke_write,
};

static const struct file_operations state_fops = {
	.owner = THIS_MODULE,
	.read = state_read,
	.write = state_write,
};

static int __init uc_buggy_init(void)
{
	slab_obj = kmalloc(64, GFP_KERNEL);
	wl_cache = kmem_cache_create_usercopy("uc_buggy_wl", WL_SIZE, 0, 0,
					      WL_OFFSET, WL_LEN, NULL);
	/* As code written for PaX does. */
#ifdef SLAB_USERCOPY
	flag_cache = kmem_cache_create("uc_buggy_flag", OBJ_SIZE, 0,
				       SLAB_USERCOPY, obj_ctor);
#endif
	nowl_cache = kmem_cache_create("uc_buggy_nowl", OBJ_SIZE, 0, 0,
				       obj_ctor);
	if (!slab_obj || !wl_cache || !flag_cache || !nowl_cache)
		goto fail;
	wl_obj = kmem_cache_alloc(wl_cache, GFP_KERNEL);
	flag_obj = obj_alloc(flag_cache);
	nowl_obj = obj_alloc(nowl_cache);
	if (!wl_obj || !flag_obj || !nowl_obj)
		goto fail;
	memset(slab_obj, SECRET, 64);
	wl_reset();
	hrtimer_init(&irq_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	irq_timer.function = irq_copy;

	dir = debugfs_create_dir("uc_buggy", NULL);
	debugfs_create_file("slab", 0444, dir, NULL, &slab_fops);
	debugfs_create_file("whitelist", 0644, dir, NULL, &wl_fops);
	debugfs_create_file("flag", 0444, dir, NULL, &flag_fops);
	debugfs_create_file("nowl", 0444, dir, NULL, &nowl_fops);
	debugfs_create_file("bounce", 0644, dir, NULL, &bounce_fops);
	debugfs_create_file("memdup", 0444, dir, NULL, &memdup_fops);
	debugfs_create_file("stack", 0644, dir, NULL, &stack_fops);
	debugfs_create_file("fixed", 0444, dir, NULL, &fixed_fops);
	debugfs_create_file("state", 0644, dir, NULL, &state_fops);
	debugfs_create_file("poke", 0200, dir, NULL, &poke_fops);
	debugfs_create_file("irq", 0200, dir, NULL, &irq_fops);
	return 0;
fail:
	if (wl_obj)
		kmem_cache_free(wl_cache, wl_obj);
	if (flag_obj)
		kmem_cache_free(flag_cache, flag_obj);
	if (nowl_obj)
		kmem_cache_free(nowl_cache, nowl_obj);
	kmem_cache_destroy(nowl_cache);
	kmem_cache_destroy(flag_cache);
	kmem_cache_destroy(wl_cache);
	kfree(slab_obj);
	return -ENOMEM;
}

static void __exit uc_buggy_exit(void)
{
	debugfs_remove_recursive(dir);
	hrtimer_cancel(&irq_timer);
	kmem_cache_free(wl_cache, wl_obj);
	kmem_cache_free(flag_cache, flag_obj);
	kmem_cache_free(nowl_cache, nowl_obj);
	kmem_cache_destroy(wl_cache);
	kmem_cache_destroy(flag_cache);
	kmem_cache_destroy(nowl_cache);
	kfree(slab_obj);
}

module_init(uc_buggy_init);
module_exit(uc_buggy_exit);
MODULE_DESCRIPTION("Deliberately buggy driver for usercopy hardening tests");
MODULE_LICENSE("GPL");
