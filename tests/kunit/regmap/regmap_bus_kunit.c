// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit checks, in the running kernel, of regmap core features that
 * drivers of SPI devices with native bit set/clear commands rely on:
 *
 *  - a bus's reg_update_bits op, used for volatile registers only;
 *  - GFP_ATOMIC scratch buffers for fast_io maps in regmap_bulk_write();
 *  - regmap-irq unmask_base (separate unmask registers), ack_invert and
 *    REGMAP_IRQ_REG();
 *  - the debugfs "range" file.
 *
 * Every check runs against a fake bus that records each call it gets.
 */

#include <kunit/test.h>
#include <linux/debugfs.h>
#include <linux/device.h>
#include <linux/interrupt.h>
#include <linux/irq.h>
#include <linux/irqdomain.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/regmap.h>
#include <linux/spinlock.h>

#define REGMAP_BUS_KUNIT_DEV		"regmap-bus-kunit"

#define FAKE_NREGS		0x40
#define FAKE_MAX_CALLS		32
#define FAKE_RAW_MAX		32

enum fake_op {
	FAKE_READ = 1,
	FAKE_WRITE,
	FAKE_UPDATE,
};

struct fake_call {
	enum fake_op op;
	unsigned int reg;
	unsigned int mask;
	unsigned int val;
};

/* A register file and the log of every call the bus got */
struct fake_bus {
	spinlock_t lock;	/* the bus is called from the irq thread too */
	unsigned int regs[FAKE_NREGS];
	struct fake_call calls[FAKE_MAX_CALLS];
	unsigned int ncalls;
	bool overflow;
	int update_err;
	/* raw bus: the bytes of the last write, and how many writes */
	u8 raw[FAKE_RAW_MAX];
	size_t raw_len;
	unsigned int raw_writes;
};

static void fake_log(struct fake_bus *fb, enum fake_op op, unsigned int reg,
		     unsigned int mask, unsigned int val)
{
	struct fake_call *c;

	if (fb->ncalls >= FAKE_MAX_CALLS) {
		fb->overflow = true;
		return;
	}
	c = &fb->calls[fb->ncalls++];
	c->op = op;
	c->reg = reg;
	c->mask = mask;
	c->val = val;
}

static void fake_reset_log(struct fake_bus *fb)
{
	unsigned long flags;

	spin_lock_irqsave(&fb->lock, flags);
	fb->ncalls = 0;
	fb->overflow = false;
	spin_unlock_irqrestore(&fb->lock, flags);
}

static int fake_reg_read(void *ctx, unsigned int reg, unsigned int *val)
{
	struct fake_bus *fb = ctx;
	unsigned long flags;

	if (reg >= FAKE_NREGS)
		return -EIO;
	spin_lock_irqsave(&fb->lock, flags);
	*val = fb->regs[reg];
	fake_log(fb, FAKE_READ, reg, 0, *val);
	spin_unlock_irqrestore(&fb->lock, flags);
	return 0;
}

static int fake_reg_write(void *ctx, unsigned int reg, unsigned int val)
{
	struct fake_bus *fb = ctx;
	unsigned long flags;

	if (reg >= FAKE_NREGS)
		return -EIO;
	spin_lock_irqsave(&fb->lock, flags);
	fb->regs[reg] = val;
	fake_log(fb, FAKE_WRITE, reg, 0, val);
	spin_unlock_irqrestore(&fb->lock, flags);
	return 0;
}

static int fake_reg_update_bits(void *ctx, unsigned int reg,
				unsigned int mask, unsigned int val)
{
	struct fake_bus *fb = ctx;
	unsigned long flags;

	if (reg >= FAKE_NREGS)
		return -EIO;
	spin_lock_irqsave(&fb->lock, flags);
	fake_log(fb, FAKE_UPDATE, reg, mask, val);
	if (!fb->update_err)
		fb->regs[reg] = (fb->regs[reg] & ~mask) | (val & mask);
	spin_unlock_irqrestore(&fb->lock, flags);
	return fb->update_err;
}

/* Like the driver's bus: native update_bits */
static const struct regmap_bus fake_bus_offload = {
	.reg_read = fake_reg_read,
	.reg_write = fake_reg_write,
	.reg_update_bits = fake_reg_update_bits,
};

/* Without it: the core does read-modify-write */
static const struct regmap_bus fake_bus_plain = {
	.reg_read = fake_reg_read,
	.reg_write = fake_reg_write,
};

/* A raw (byte stream) fast_io bus, as regmap-spi's gather_write is */
static int fake_raw_gather_write(void *ctx, const void *reg, size_t reg_len,
				 const void *val, size_t val_len)
{
	struct fake_bus *fb = ctx;
	unsigned long flags;

	if (reg_len + val_len > FAKE_RAW_MAX)
		return -EINVAL;
	spin_lock_irqsave(&fb->lock, flags);
	memcpy(fb->raw, reg, reg_len);
	memcpy(fb->raw + reg_len, val, val_len);
	fb->raw_len = reg_len + val_len;
	fb->raw_writes++;
	spin_unlock_irqrestore(&fb->lock, flags);
	return 0;
}

static int fake_raw_write(void *ctx, const void *data, size_t count)
{
	return fake_raw_gather_write(ctx, data, count, NULL, 0);
}

static int fake_raw_read(void *ctx, const void *reg, size_t reg_size,
			 void *val, size_t val_size)
{
	memset(val, 0, val_size);
	return 0;
}

static const struct regmap_bus fake_bus_raw = {
	.write = fake_raw_write,
	.gather_write = fake_raw_gather_write,
	.read = fake_raw_read,
	.fast_io = true,
	.reg_format_endian_default = REGMAP_ENDIAN_BIG,
	.val_format_endian_default = REGMAP_ENDIAN_BIG,
};

struct regmap_bus_kunit_test {
	struct device *dev;
	struct fake_bus fb;
	struct regmap *map;
	int parent_irq;
	struct regmap_irq_chip_data *irq_data;
	int child_irq[2];
	atomic_t child_calls[2];
};

static int regmap_bus_kunit_init(struct kunit *test)
{
	struct regmap_bus_kunit_test *t;

	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	spin_lock_init(&t->fb.lock);
	t->parent_irq = -1;
	t->child_irq[0] = -1;
	t->child_irq[1] = -1;
	/*
	 * No owner: the suite runs while the module is still coming up,
	 * before its sysfs directory (the owner link's target) exists.
	 */
	t->dev = __root_device_register(REGMAP_BUS_KUNIT_DEV, NULL);
	if (IS_ERR(t->dev))
		return PTR_ERR(t->dev);
	test->priv = t;
	return 0;
}

static void regmap_bus_kunit_exit(struct kunit *test)
{
	struct regmap_bus_kunit_test *t = test->priv;
	int i;

	if (!t)
		return;
	for (i = 0; i < ARRAY_SIZE(t->child_irq); i++)
		if (t->child_irq[i] > 0)
			free_irq(t->child_irq[i], &t->child_calls[i]);
	if (t->irq_data)
		regmap_del_irq_chip(t->parent_irq, t->irq_data);
	if (t->parent_irq > 0)
		irq_free_desc(t->parent_irq);
	if (t->map)
		regmap_exit(t->map);
	root_device_unregister(t->dev);
}

static void expect_call(struct kunit *test, const struct fake_bus *fb,
			unsigned int i, enum fake_op op, unsigned int reg,
			unsigned int mask, unsigned int val)
{
	KUNIT_ASSERT_FALSE(test, fb->overflow);
	KUNIT_ASSERT_LT_MSG(test, i, fb->ncalls, "bus call %u missing", i);
	KUNIT_EXPECT_EQ_MSG(test, fb->calls[i].op, op, "bus call %u", i);
	KUNIT_EXPECT_EQ_MSG(test, fb->calls[i].reg, reg, "bus call %u", i);
	KUNIT_EXPECT_EQ_MSG(test, fb->calls[i].mask, mask, "bus call %u", i);
	KUNIT_EXPECT_EQ_MSG(test, fb->calls[i].val, val, "bus call %u", i);
}

/* --- reg_update_bits ------------------------------------------------- */

static const struct regmap_range volatile_ranges[] = {
	regmap_reg_range(0x00, 0x0f),
};

static const struct regmap_access_table volatile_table = {
	.yes_ranges = volatile_ranges,
	.n_yes_ranges = ARRAY_SIZE(volatile_ranges),
};

static const struct reg_default cached_defaults[] = {
	{ .reg = 0x20, .def = 0x0001 },
};

static struct regmap *make_map(struct kunit *test,
			       const struct regmap_bus *bus,
			       enum regcache_type cache)
{
	bool cached = cache != REGCACHE_NONE;
	struct regmap_bus_kunit_test *t = test->priv;
	const struct regmap_config cfg = {
		.reg_bits = 8,
		.val_bits = 16,
		.max_register = FAKE_NREGS - 1,
		.volatile_table = &volatile_table,
		.cache_type = cache,
		.reg_defaults = cached ? cached_defaults : NULL,
		.num_reg_defaults = cached ? ARRAY_SIZE(cached_defaults) : 0,
	};

	t->map = regmap_init(t->dev, bus, &t->fb, &cfg);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t->map);
	return t->map;
}

/* Volatile register: one bus update_bits call with the caller's mask/val */
static void update_bits_volatile_uses_bus_op(struct kunit *test)
{
	struct regmap_bus_kunit_test *t = test->priv;
	struct fake_bus *fb = &t->fb;
	struct regmap *map = make_map(test, &fake_bus_offload, REGCACHE_NONE);
	bool change = false;

	fb->regs[0x04] = 0x00f0;
	KUNIT_ASSERT_EQ(test, regmap_update_bits_check(map, 0x04, 0x0ff0,
						       0x0a50, &change), 0);
	KUNIT_EXPECT_EQ(test, fb->ncalls, 1);
	expect_call(test, fb, 0, FAKE_UPDATE, 0x04, 0x0ff0, 0x0a50);
	KUNIT_EXPECT_TRUE(test, change);
	KUNIT_EXPECT_EQ(test, fb->regs[0x04], 0x0a50);

	/* the core cannot know whether the bus op changed anything: true */
	fake_reset_log(fb);
	change = false;
	KUNIT_ASSERT_EQ(test, regmap_update_bits_check(map, 0x04, 0x0ff0,
						       0x0a50, &change), 0);
	KUNIT_EXPECT_EQ(test, fb->ncalls, 1);
	expect_call(test, fb, 0, FAKE_UPDATE, 0x04, 0x0ff0, 0x0a50);
	KUNIT_EXPECT_TRUE(test, change);

	/* a failing bus op: the error comes back, no change reported */
	fake_reset_log(fb);
	fb->update_err = -EIO;
	change = true;
	KUNIT_EXPECT_EQ(test, regmap_update_bits_check(map, 0x0f, 0x1, 0x1,
						       &change), -EIO);
	KUNIT_EXPECT_EQ(test, fb->ncalls, 1);
	expect_call(test, fb, 0, FAKE_UPDATE, 0x0f, 0x1, 0x1);
	KUNIT_EXPECT_FALSE(test, change);
}

/* Non-volatile register: read, then write only if the value changes */
static void update_bits_nonvolatile_read_write(struct kunit *test)
{
	struct regmap_bus_kunit_test *t = test->priv;
	struct fake_bus *fb = &t->fb;
	struct regmap *map = make_map(test, &fake_bus_offload, REGCACHE_NONE);
	bool change = false;

	fb->regs[0x12] = 0x1234;
	KUNIT_ASSERT_EQ(test, regmap_update_bits_check(map, 0x12, 0x00ff,
						       0x00ab, &change), 0);
	KUNIT_EXPECT_EQ(test, fb->ncalls, 2);
	expect_call(test, fb, 0, FAKE_READ, 0x12, 0, 0x1234);
	expect_call(test, fb, 1, FAKE_WRITE, 0x12, 0, 0x12ab);
	KUNIT_EXPECT_TRUE(test, change);

	/* unchanged: the read only, no change */
	fake_reset_log(fb);
	KUNIT_ASSERT_EQ(test, regmap_update_bits_check(map, 0x12, 0x00ff,
						       0x00ab, &change), 0);
	KUNIT_EXPECT_EQ(test, fb->ncalls, 1);
	expect_call(test, fb, 0, FAKE_READ, 0x12, 0, 0x12ab);
	KUNIT_EXPECT_FALSE(test, change);

	/* regmap_write_bits() forces the write */
	fake_reset_log(fb);
	KUNIT_ASSERT_EQ(test, regmap_write_bits(map, 0x12, 0x00ff, 0x00ab), 0);
	KUNIT_EXPECT_EQ(test, fb->ncalls, 2);
	expect_call(test, fb, 0, FAKE_READ, 0x12, 0, 0x12ab);
	expect_call(test, fb, 1, FAKE_WRITE, 0x12, 0, 0x12ab);
}

/* A bus without the op: volatile registers get read + write too */
static void update_bits_without_bus_op(struct kunit *test)
{
	struct regmap_bus_kunit_test *t = test->priv;
	struct fake_bus *fb = &t->fb;
	struct regmap *map = make_map(test, &fake_bus_plain, REGCACHE_NONE);
	bool change = false;

	fb->regs[0x04] = 0xff00;
	KUNIT_ASSERT_EQ(test, regmap_update_bits_check(map, 0x04, 0x0ff0,
						       0x0000, &change), 0);
	KUNIT_EXPECT_EQ(test, fb->ncalls, 2);
	expect_call(test, fb, 0, FAKE_READ, 0x04, 0, 0xff00);
	expect_call(test, fb, 1, FAKE_WRITE, 0x04, 0, 0xf000);
	KUNIT_EXPECT_TRUE(test, change);
}

/*
 * Cached map: a cached register is updated from the cache and written
 * once (no read), an unchanged one not at all; volatile registers still
 * go to the bus op.
 */
static void update_bits_cached(struct kunit *test)
{
	struct regmap_bus_kunit_test *t = test->priv;
	struct fake_bus *fb = &t->fb;
	struct regmap *map = make_map(test, &fake_bus_offload, REGCACHE_FLAT);
	bool change = false;

	fake_reset_log(fb);
	KUNIT_ASSERT_EQ(test, regmap_update_bits_check(map, 0x20, 0x00f0,
						       0x0030, &change), 0);
	KUNIT_EXPECT_EQ(test, fb->ncalls, 1);
	expect_call(test, fb, 0, FAKE_WRITE, 0x20, 0, 0x0031);
	KUNIT_EXPECT_TRUE(test, change);

	fake_reset_log(fb);
	KUNIT_ASSERT_EQ(test, regmap_update_bits_check(map, 0x20, 0x00f0,
						       0x0030, &change), 0);
	KUNIT_EXPECT_EQ(test, fb->ncalls, 0);
	KUNIT_EXPECT_FALSE(test, change);

	fake_reset_log(fb);
	KUNIT_ASSERT_EQ(test, regmap_update_bits_check(map, 0x08, 0x8000,
						       0x8000, &change), 0);
	KUNIT_EXPECT_EQ(test, fb->ncalls, 1);
	expect_call(test, fb, 0, FAKE_UPDATE, 0x08, 0x8000, 0x8000);
	KUNIT_EXPECT_TRUE(test, change);
}

/* --- fast_io bulk write from atomic context -------------------------- */

static DEFINE_SPINLOCK(atomic_test_lock);

static void bulk_write_fast_io_atomic(struct kunit *test)
{
	struct regmap_bus_kunit_test *t = test->priv;
	struct fake_bus *fb = &t->fb;
	static const u16 vals[] = { 0x1234, 0xabcd, 0x0102 };
	static const u8 wire[] = { 0x10, 0x12, 0x34, 0xab, 0xcd, 0x01, 0x02 };
	const struct regmap_config cfg = {
		.reg_bits = 8,
		.val_bits = 16,
		.max_register = FAKE_NREGS - 1,
		.fast_io = true,
		.cache_type = REGCACHE_NONE,
	};
	unsigned long flags;
	size_t i;
	int ret;

	/* a GFP_KERNEL allocation under the lock must not go unnoticed */
	if (!IS_ENABLED(CONFIG_DEBUG_ATOMIC_SLEEP))
		kunit_skip(test, "needs CONFIG_DEBUG_ATOMIC_SLEEP");
	if (test_taint(TAINT_WARN))
		kunit_skip(test, "the kernel has warned before: a warning here would not show");

	t->map = regmap_init(t->dev, &fake_bus_raw, fb, &cfg);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t->map);

	spin_lock_irqsave(&atomic_test_lock, flags);
	ret = regmap_bulk_write(t->map, 0x10, vals, ARRAY_SIZE(vals));
	spin_unlock_irqrestore(&atomic_test_lock, flags);

	KUNIT_EXPECT_EQ(test, ret, 0);
	/* "BUG: sleeping function called from invalid context" taints W */
	KUNIT_EXPECT_FALSE_MSG(test, test_taint(TAINT_WARN),
			       "the bulk write warned (sleeping allocation?)");
	KUNIT_EXPECT_EQ(test, fb->raw_writes, 1);
	KUNIT_ASSERT_EQ(test, fb->raw_len, sizeof(wire));
	for (i = 0; i < sizeof(wire); i++)
		KUNIT_EXPECT_EQ_MSG(test, fb->raw[i], wire[i], "byte %zu", i);
}

/* --- regmap-irq ------------------------------------------------------ */

#define IRQ_STATUS	0x10
#define IRQ_MASK	0x11
#define IRQ_UNMASK	0x12
#define IRQ_ACK		0x13

/* hwirq 0: bit 0, hwirq 1: bit 3, hwirq 2: bit 7, all in one register */
static const struct regmap_irq fake_irqs[] = {
	REGMAP_IRQ_REG(0, 0, BIT(0)),
	REGMAP_IRQ_REG(1, 0, BIT(3)),
	REGMAP_IRQ_REG(2, 0, BIT(7)),
};

#define FAKE_IRQ_ALL	(BIT(0) | BIT(3) | BIT(7))

static irqreturn_t fake_child_handler(int irq, void *arg)
{
	atomic_inc(arg);
	return IRQ_HANDLED;
}

/* The last value the bus wrote to @reg since the log was reset, or -1 */
static long last_write(const struct fake_bus *fb, unsigned int reg)
{
	long v = -1;
	unsigned int i;

	for (i = 0; i < fb->ncalls; i++)
		if (fb->calls[i].op == FAKE_WRITE && fb->calls[i].reg == reg)
			v = fb->calls[i].val;
	return v;
}

static unsigned int count_writes(const struct fake_bus *fb, unsigned int reg)
{
	unsigned int i, n = 0;

	for (i = 0; i < fb->ncalls; i++)
		if (fb->calls[i].op == FAKE_WRITE && fb->calls[i].reg == reg)
			n++;
	return n;
}

/*
 * An irq chip with separate mask and unmask registers
 * (mask_unmask_non_inverted: a set bit masks in MASK and unmasks in
 * UNMASK) on a map without cache, whose parent is a requestable irq
 * descriptor with no hardware behind it, fired by hand.
 */
#define FAKE_IRQ_CHIP(invert) {				\
	.name = REGMAP_BUS_KUNIT_DEV,					\
	.status_base = IRQ_STATUS,				\
	.mask_base = IRQ_MASK,					\
	.unmask_base = IRQ_UNMASK,				\
	.mask_unmask_non_inverted = true,			\
	.ack_base = IRQ_ACK,					\
	.ack_invert = (invert),					\
	.num_regs = 1,						\
	.irqs = fake_irqs,					\
	.num_irqs = ARRAY_SIZE(fake_irqs),			\
}

/* the core keeps a pointer to the chip: static */
static const struct regmap_irq_chip fake_irq_chip = FAKE_IRQ_CHIP(false);
static const struct regmap_irq_chip fake_irq_chip_ack_invert = FAKE_IRQ_CHIP(true);

static void setup_irq_chip(struct kunit *test, bool ack_invert)
{
	const struct regmap_irq_chip *chip = ack_invert ? &fake_irq_chip_ack_invert :
							  &fake_irq_chip;
	struct regmap_bus_kunit_test *t = test->priv;
	const struct regmap_config cfg = {
		.reg_bits = 8,
		.val_bits = 8,
		.max_register = FAKE_NREGS - 1,
		.cache_type = REGCACHE_NONE,
	};
	int ret, i;

	t->map = regmap_init(t->dev, &fake_bus_plain, &t->fb, &cfg);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t->map);

	t->parent_irq = irq_alloc_desc(NUMA_NO_NODE);
	KUNIT_ASSERT_GT(test, t->parent_irq, 0);
	irq_set_chip_and_handler(t->parent_irq, &dummy_irq_chip,
				 handle_simple_irq);
	irq_clear_status_flags(t->parent_irq, IRQ_NOREQUEST);

	ret = regmap_add_irq_chip(t->map, t->parent_irq, 0, 0, chip,
				  &t->irq_data);
	KUNIT_ASSERT_EQ(test, ret, 0);

	/* everything masked to start with */
	KUNIT_EXPECT_EQ(test, t->fb.regs[IRQ_MASK], FAKE_IRQ_ALL);
	KUNIT_EXPECT_EQ(test, t->fb.regs[IRQ_UNMASK], 0);
	KUNIT_EXPECT_EQ(test, last_write(&t->fb, IRQ_MASK), FAKE_IRQ_ALL);

	for (i = 0; i < ARRAY_SIZE(t->child_irq); i++) {
		int virq = regmap_irq_get_virq(t->irq_data, i + 1);

		KUNIT_ASSERT_GT(test, virq, 0);
		atomic_set(&t->child_calls[i], 0);
		ret = request_threaded_irq(virq, NULL, fake_child_handler,
					   IRQF_ONESHOT, REGMAP_BUS_KUNIT_DEV,
					   &t->child_calls[i]);
		KUNIT_ASSERT_EQ(test, ret, 0);
		t->child_irq[i] = virq;
	}
}

/* Fire the parent and wait for regmap-irq's thread to be done */
static void fire_parent(struct regmap_bus_kunit_test *t)
{
	generic_handle_irq_safe(t->parent_irq);
	synchronize_irq(t->parent_irq);
}

/* REGMAP_IRQ_REG() fills the table by irq number, holes stay empty */
static void irq_reg_macro(struct kunit *test)
{
	static const struct regmap_irq sparse[] = {
		REGMAP_IRQ_REG(1, 2, BIT(4)),
		REGMAP_IRQ_REG(3, 0, BIT(15)),
	};
	struct regmap_bus_kunit_test *t = test->priv;
	int a, b, c;

	KUNIT_EXPECT_EQ(test, ARRAY_SIZE(sparse), 4);
	KUNIT_EXPECT_EQ(test, sparse[0].mask, 0);
	KUNIT_EXPECT_EQ(test, sparse[1].reg_offset, 2);
	KUNIT_EXPECT_EQ(test, sparse[1].mask, BIT(4));
	KUNIT_EXPECT_EQ(test, sparse[2].mask, 0);
	KUNIT_EXPECT_EQ(test, sparse[3].reg_offset, 0);
	KUNIT_EXPECT_EQ(test, sparse[3].mask, BIT(15));

	KUNIT_EXPECT_EQ(test, ARRAY_SIZE(fake_irqs), 3);
	KUNIT_EXPECT_EQ(test, fake_irqs[1].reg_offset, 0);
	KUNIT_EXPECT_EQ(test, fake_irqs[1].mask, BIT(3));

	/* the core maps one virq per table entry */
	setup_irq_chip(test, true);
	a = regmap_irq_get_virq(t->irq_data, 0);
	b = regmap_irq_get_virq(t->irq_data, 1);
	c = regmap_irq_get_virq(t->irq_data, 2);
	KUNIT_EXPECT_GT(test, a, 0);
	KUNIT_EXPECT_NE(test, a, b);
	KUNIT_EXPECT_NE(test, b, c);
	KUNIT_EXPECT_NE(test, a, c);
	KUNIT_EXPECT_EQ(test, b, t->child_irq[0]);
	KUNIT_EXPECT_EQ(test, c, t->child_irq[1]);
}

/* Masking sets the bit in MASK, unmasking sets it in UNMASK */
static void irq_unmask_base(struct kunit *test)
{
	struct regmap_bus_kunit_test *t = test->priv;
	struct fake_bus *fb = &t->fb;

	/* requesting hwirq 1 (bit 3) and 2 (bit 7) unmasked them */
	setup_irq_chip(test, true);
	KUNIT_EXPECT_EQ(test, fb->regs[IRQ_MASK], BIT(0));
	KUNIT_EXPECT_EQ(test, fb->regs[IRQ_UNMASK], BIT(3) | BIT(7));

	fake_reset_log(fb);
	disable_irq(t->child_irq[0]);
	KUNIT_EXPECT_EQ(test, last_write(fb, IRQ_MASK), BIT(0) | BIT(3));
	KUNIT_EXPECT_EQ(test, last_write(fb, IRQ_UNMASK), BIT(7));
	KUNIT_EXPECT_EQ(test, count_writes(fb, IRQ_MASK), 1);
	KUNIT_EXPECT_EQ(test, count_writes(fb, IRQ_UNMASK), 1);

	fake_reset_log(fb);
	enable_irq(t->child_irq[0]);
	KUNIT_EXPECT_EQ(test, last_write(fb, IRQ_UNMASK), BIT(3) | BIT(7));
	KUNIT_EXPECT_EQ(test, last_write(fb, IRQ_MASK), BIT(0));
	KUNIT_EXPECT_EQ(test, count_writes(fb, IRQ_MASK), 1);
	KUNIT_EXPECT_EQ(test, count_writes(fb, IRQ_UNMASK), 1);

	/* no ack was written by any of this */
	KUNIT_EXPECT_EQ(test, count_writes(fb, IRQ_ACK), 0);
}

static void check_ack(struct kunit *test, bool ack_invert)
{
	struct regmap_bus_kunit_test *t = test->priv;
	struct fake_bus *fb = &t->fb;

	setup_irq_chip(test, ack_invert);

	/* bit 0 is pending but masked, bit 3 pending and unmasked */
	fb->regs[IRQ_STATUS] = BIT(0) | BIT(3);
	fake_reset_log(fb);
	fire_parent(t);
	KUNIT_EXPECT_EQ(test, count_writes(fb, IRQ_ACK), 1);
	if (ack_invert)
		KUNIT_EXPECT_EQ(test, last_write(fb, IRQ_ACK) & 0xff,
				(long)(0xff & ~BIT(3)));
	else
		KUNIT_EXPECT_EQ(test, last_write(fb, IRQ_ACK), BIT(3));
	KUNIT_EXPECT_EQ(test, atomic_read(&t->child_calls[0]), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&t->child_calls[1]), 0);

	/* two at once: one ack write for both, both handlers run */
	fb->regs[IRQ_STATUS] = BIT(3) | BIT(7);
	fake_reset_log(fb);
	fire_parent(t);
	KUNIT_EXPECT_EQ(test, count_writes(fb, IRQ_ACK), 1);
	if (ack_invert)
		KUNIT_EXPECT_EQ(test, last_write(fb, IRQ_ACK) & 0xff,
				(long)(0xff & ~(BIT(3) | BIT(7))));
	else
		KUNIT_EXPECT_EQ(test, last_write(fb, IRQ_ACK), BIT(3) | BIT(7));
	KUNIT_EXPECT_EQ(test, atomic_read(&t->child_calls[0]), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&t->child_calls[1]), 1);

	/* only a masked source pending: no ack, no handler */
	fb->regs[IRQ_STATUS] = BIT(0);
	fake_reset_log(fb);
	fire_parent(t);
	KUNIT_EXPECT_EQ(test, count_writes(fb, IRQ_ACK), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&t->child_calls[0]), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&t->child_calls[1]), 1);
}

/* ack_invert: the ack register gets the acked bits cleared, others set */
static void irq_ack_invert(struct kunit *test)
{
	check_ack(test, true);
}

/* the contrast: without ack_invert the acked bits are written set */
static void irq_ack_plain(struct kunit *test)
{
	check_ack(test, false);
}

/* --- debugfs "range" ------------------------------------------------- */

/* 0-3, 8-b, 10-10, 20-2f less the precious 22: five blocks */
static const struct regmap_range range_rd_ranges[] = {
	regmap_reg_range(0x00, 0x03),
	regmap_reg_range(0x08, 0x0b),
	regmap_reg_range(0x10, 0x10),
	regmap_reg_range(0x20, 0x2f),
};

static const struct regmap_access_table range_rd_table = {
	.yes_ranges = range_rd_ranges,
	.n_yes_ranges = ARRAY_SIZE(range_rd_ranges),
};

static const struct regmap_range range_precious_ranges[] = {
	regmap_reg_range(0x22, 0x22),
};

static const struct regmap_access_table range_precious_table = {
	.yes_ranges = range_precious_ranges,
	.n_yes_ranges = ARRAY_SIZE(range_precious_ranges),
};

static const struct regmap_config range_config = {
	.name = "range",
	.reg_bits = 8,
	.val_bits = 16,
	.max_register = FAKE_NREGS - 1,
	.rd_table = &range_rd_table,
	.precious_table = &range_precious_table,
	.cache_type = REGCACHE_NONE,
};

/* The map gets a debugfs directory <device>-<name> with a "range" file */
static void debugfs_range_file(struct kunit *test)
{
	struct regmap_bus_kunit_test *t = test->priv;
	struct dentry *root, *dir, *file;

	if (!IS_ENABLED(CONFIG_DEBUG_FS))
		kunit_skip(test, "needs CONFIG_DEBUG_FS");
	t->map = regmap_init(t->dev, &fake_bus_plain, &t->fb, &range_config);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t->map);

	root = debugfs_lookup("regmap", NULL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, root);
	dir = debugfs_lookup(REGMAP_BUS_KUNIT_DEV "-range", root);
	dput(root);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dir);
	file = debugfs_lookup("range", dir);
	dput(dir);
	KUNIT_EXPECT_NOT_ERR_OR_NULL(test, file);
	dput(file);
}

static struct kunit_case regmap_bus_kunit_cases[] = {
	KUNIT_CASE(update_bits_volatile_uses_bus_op),
	KUNIT_CASE(update_bits_nonvolatile_read_write),
	KUNIT_CASE(update_bits_without_bus_op),
	KUNIT_CASE(update_bits_cached),
	KUNIT_CASE(bulk_write_fast_io_atomic),
	KUNIT_CASE(irq_reg_macro),
	KUNIT_CASE(irq_unmask_base),
	KUNIT_CASE(irq_ack_invert),
	KUNIT_CASE(irq_ack_plain),
	KUNIT_CASE(debugfs_range_file),
	{}
};

static struct kunit_suite regmap_bus_kunit_suite = {
	.name = "regmap_bus",
	.init = regmap_bus_kunit_init,
	.exit = regmap_bus_kunit_exit,
	.test_cases = regmap_bus_kunit_cases,
};

kunit_test_suite(regmap_bus_kunit_suite);

#ifdef REGMAP_BUS_KUNIT_RANGE_MAP
/*
 * The kernel cannot read a debugfs file that only has ->read, so user space
 * reads the "range" file of this map: a root device REGMAP_BUS_KUNIT_RANGE_DEV
 * with the readable registers of range_rd_table minus the precious ones of
 * range_precious_table, kept while the module is loaded.
 */
#define REGMAP_BUS_KUNIT_RANGE_DEV	"regmap-bus-kunit-debugfs"

static struct device *range_dev;
static struct regmap *range_map;
static struct fake_bus range_bus;

static int __init regmap_bus_kunit_range_init(void)
{
	spin_lock_init(&range_bus.lock);
	range_dev = root_device_register(REGMAP_BUS_KUNIT_RANGE_DEV);
	if (IS_ERR(range_dev))
		return PTR_ERR(range_dev);
	range_map = regmap_init(range_dev, &fake_bus_plain, &range_bus,
				&range_config);
	if (IS_ERR(range_map)) {
		root_device_unregister(range_dev);
		return PTR_ERR(range_map);
	}
	return 0;
}
module_init(regmap_bus_kunit_range_init);

static void __exit regmap_bus_kunit_range_exit(void)
{
	regmap_exit(range_map);
	root_device_unregister(range_dev);
}
module_exit(regmap_bus_kunit_range_exit);

#endif /* REGMAP_BUS_KUNIT_RANGE_MAP */
MODULE_DESCRIPTION("KUnit checks of the regmap bus, fast_io, regmap-irq and debugfs");
MODULE_LICENSE("GPL");
