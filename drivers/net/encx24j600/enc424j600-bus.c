// SPDX-License-Identifier: GPL-2.0
/*
 * ENCX24J600 bus layer: raw SPI commands, SRAM windows and a regmap bus
 * that uses only the unbanked opcodes (RCRU/WCRU/BFSU/BFCU).
 *
 * Every chip-select frame is one full-duplex spi_transfer: the opcode and
 * its arguments lead the TX buffer, data comes back at the matching
 * offset of the RX buffer.  A frame is a message of its own, except the
 * releases of an RX batch (one SETPKTDEC per frame, then ERXTAIL): those
 * go as one message of several frames, CS deasserted between them
 * (cs_change), so a batch of k frames costs one spi_sync, not k + 1.  On
 * a small host the spi_sync (a wake-up, the controller's message pump)
 * costs far more than the bus time of a one-byte frame.  The counters
 * below count transactions (CS frames) and spi_sync calls apart.
 */

#include <linux/kernel.h>
#ifdef ENC_TEST_HOOKS
#include <linux/module.h>	/* the test knobs' module_param() */
#endif
#include <linux/spi/spi.h>
#include <linux/unaligned.h>

#include "enc424j600.h"
#include "enc424j600-logic.h"

#ifdef ENC_TEST_HOOKS
/* Knobs of this repository's tests and benchmark, not of the driver */
static bool offload = true;
module_param(offload, bool, 0444);
MODULE_PARM_DESC(offload,
		 "Use the chip's BFSU/BFCU opcodes for regmap update_bits on volatile registers (default: on)");

static bool chain_cmds;
module_param(chain_cmds, bool, 0444);
MODULE_PARM_DESC(chain_cmds,
		 "Chain the SETPKTDEC commands of an RX batch in chip-select frames of up to 28, the last leading the ERXTAIL write when one is due (default: off)");
#endif

/* Send one CS frame: @len bytes from @tx, answer into @rx (may be NULL);
 * bus_lock held.
 */
static int enc_xfer(struct enc_priv *priv, const void *tx, void *rx,
		    unsigned int len)
{
	struct spi_transfer t = {
		.tx_buf = tx,
		.rx_buf = rx,
		.len = len,
	};
	int ret;

	lockdep_assert_held(&priv->bus_lock);

	priv->bstats.spi_syncs++;
	priv->bstats.spi_transactions++;
	priv->bstats.spi_bytes += len;
	ret = spi_sync_transfer(priv->spi, &t, 1);
	if (ret && net_ratelimit())
		dev_err(&priv->spi->dev, "SPI transfer failed: %d\n", ret);
	return ret;
}

static int __enc_tx(struct enc_priv *priv, unsigned int len)
{
	return enc_xfer(priv, priv->bufs->tx, NULL, len);
}

int enc_cmd(struct enc_priv *priv, u8 op)
{
	int ret;

	mutex_lock(&priv->bus_lock);
	priv->bufs->tx[0] = op;
	ret = __enc_tx(priv, 1);
	mutex_unlock(&priv->bus_lock);
	return ret;
}

/* RCRU burst; the data lands at bufs->rx + 2 */
static int __enc_sfr_read(struct enc_priv *priv, u8 addr, size_t len)
{
	u8 *tx = priv->bufs->tx;

	if (WARN_ON_ONCE(!len || len > ENC_SFR_XFER_MAX))
		return -EINVAL;
	tx[0] = ENC_RCRU;
	tx[1] = addr;
	memset(tx + 2, 0, len);
	return enc_xfer(priv, tx, priv->bufs->rx, len + 2);
}

/* RCRU burst: @len bytes from SFR address @addr on (auto-increment). */
int enc_sfr_read(struct enc_priv *priv, u8 addr, void *buf, size_t len)
{
	int ret;

	mutex_lock(&priv->bus_lock);
	ret = __enc_sfr_read(priv, addr, len);
	if (!ret)
		memcpy(buf, priv->bufs->rx + 2, len);
	mutex_unlock(&priv->bus_lock);
	return ret;
}

static int __enc_sfr_write(struct enc_priv *priv, u8 op, u8 addr,
			   const void *buf, size_t len)
{
	if (WARN_ON_ONCE(!len || len > ENC_SFR_XFER_MAX))
		return -EINVAL;
	priv->bufs->tx[0] = op;
	priv->bufs->tx[1] = addr;
	memcpy(&priv->bufs->tx[2], buf, len);
	return __enc_tx(priv, len + 2);
}

/* WCRU burst. */
int enc_sfr_write(struct enc_priv *priv, u8 addr, const void *buf, size_t len)
{
	int ret;

	mutex_lock(&priv->bus_lock);
	ret = __enc_sfr_write(priv, ENC_WCRU, addr, buf, len);
	mutex_unlock(&priv->bus_lock);
	return ret;
}

int enc_read16(struct enc_priv *priv, u8 addr, u16 *val)
{
	u8 b[2];
	int ret;

	ret = enc_sfr_read(priv, addr, b, sizeof(b));
	if (!ret)
		*val = get_unaligned_le16(b);
	return ret;
}

int enc_write16(struct enc_priv *priv, u8 addr, u16 val)
{
	u8 b[2];

	put_unaligned_le16(val, b);
	return enc_sfr_write(priv, addr, b, sizeof(b));
}

/* 3-byte pointer write (WGPWRPT, WRXRDPT, ...). */
int enc_ptr_write(struct enc_priv *priv, u8 op, u16 addr)
{
	int ret;

	mutex_lock(&priv->bus_lock);
	priv->bufs->tx[0] = op;
	put_unaligned_le16(addr, &priv->bufs->tx[1]);
	ret = __enc_tx(priv, 3);
	mutex_unlock(&priv->bus_lock);
	return ret;
}

/* RRXDATA burst of @len bytes; they land at priv->rx_buf + 1.  The TX
 * side is priv->rx_cmd: the opcode, then zeros.  A receive-only transfer
 * after the opcode would be no cheaper: the many controllers that must
 * transmit to receive (SPI_CONTROLLER_MUST_TX) get a dummy TX buffer of
 * the burst's length from the SPI core for every message.  The RX window
 * wraps from the end of SRAM to ERXST by itself, so consecutive bursts
 * continue where the previous one stopped.
 */
int enc_rx_read(struct enc_priv *priv, size_t len)
{
	int ret;

	if (WARN_ON_ONCE(len > priv->rx_burst_max))
		return -EINVAL;
	mutex_lock(&priv->bus_lock);
	priv->bstats.rx_bursts++;
	ret = enc_xfer(priv, priv->rx_cmd, priv->rx_buf, len + 1);
	mutex_unlock(&priv->bus_lock);
	return ret;
}

/* Send the @n CS frames queued in priv->rel_xfers as one message;
 * bus_lock held.
 */
static int enc_xfer_frames(struct enc_priv *priv, unsigned int n)
{
	struct spi_transfer *t = priv->rel_xfers;
	struct spi_message m;
	unsigned int i;
	int ret;

	lockdep_assert_held(&priv->bus_lock);

	spi_message_init(&m);
	for (i = 0; i < n; i++) {
		/* CS goes up between the frames, not after the last */
		t[i].cs_change = i + 1 < n;
		t[i].cs_change_delay.value = ENC_CS_HIGH_NS;
		t[i].cs_change_delay.unit = SPI_DELAY_UNIT_NSECS;
		priv->bstats.spi_bytes += t[i].len;
		spi_message_add_tail(&t[i], &m);
	}
	priv->bstats.spi_syncs++;
	priv->bstats.spi_transactions += n;
	ret = spi_sync(priv->spi, &m);
	if (ret && net_ratelimit())
		dev_err(&priv->spi->dev, "SPI transfer failed: %d\n", ret);
	return ret;
}

/* Give @frames consumed frames back to the chip: one SETPKTDEC each and,
 * if @set_tail, one WCRU of ERXTAIL, up to ENC_REL_XFERS CS frames to a
 * message.
 *
 * bufs->cmd holds ENC_MAX_DEC_CHAIN SETPKTDECs and then the ERXTAIL
 * write, so every frame is a slice of it: k SETPKTDECs are the k bytes
 * before the WCRU, with or without it.
 */
int enc_rx_release(struct enc_priv *priv, unsigned int frames, u16 tail,
		   bool set_tail)
{
	u8 *wcru = priv->bufs->cmd + ENC_MAX_DEC_CHAIN;
	struct spi_transfer *t = priv->rel_xfers;
	unsigned int k, n = 0;
	int ret = 0;
	bool lead;

	mutex_lock(&priv->bus_lock);
	memset(priv->bufs->cmd, ENC_SETPKTDEC, ENC_MAX_DEC_CHAIN);
	wcru[0] = ENC_WCRU;
	wcru[1] = ERXTAIL;
	put_unaligned_le16(tail, &wcru[2]);
	while (frames || set_tail) {
		/* one SETPKTDEC to a CS frame; the ERXTAIL write alone */
		k = !!frames;
		lead = !k;
#ifdef ENC_TEST_HOOKS
		/* the 1-byte commands share CS frames, the last leading the
		 * ERXTAIL write
		 */
		if (chain_cmds) {
			k = min_t(unsigned int, frames, ENC_MAX_DEC_CHAIN);
			lead = true;
		}
#endif
		frames -= k;
		memset(&t[n], 0, sizeof(t[n]));
		t[n].tx_buf = wcru - k;
		t[n].len = k;
		if (!frames && set_tail && lead) {
			t[n].len += 4;
			set_tail = false;
		}
		if (++n == ENC_REL_XFERS || (!frames && !set_tail)) {
			ret = enc_xfer_frames(priv, n);
			if (ret)
				break;
			n = 0;
		}
	}
	mutex_unlock(&priv->bus_lock);
	return ret;
}

/* WGPDATA burst at EGPWRPT: the frame, then @pad zero bytes, copied into
 * the DMA-safe TX bounce buffer behind the opcode.  One CS frame.
 */
int enc_tx_write(struct enc_priv *priv, const void *data, unsigned int len,
		 unsigned int pad)
{
	u8 *buf = priv->tx_buf;
	int ret;

	if (WARN_ON_ONCE(len + pad > ENC_TX_SIZE))
		return -EINVAL;

	mutex_lock(&priv->bus_lock);
	buf[0] = ENC_WGPDATA;
	memcpy(buf + 1, data, len);
	memset(buf + 1 + len, 0, pad);
	ret = enc_xfer(priv, buf, NULL, 1 + len + pad);
	mutex_unlock(&priv->bus_lock);
	return ret;
}

/* ETXST and ETXLEN in one WCRU burst (they are adjacent at 0x00-0x03) */
int enc_tx_set_len(struct enc_priv *priv, unsigned int len)
{
	u8 b[4];

	put_unaligned_le16(ENC_TX_START, &b[0]);
	put_unaligned_le16(len, &b[2]);
	return enc_sfr_write(priv, ETXST, b, sizeof(b));
}

/* regmap bus: 16-bit SFRs at even addresses, unbanked opcodes only */

static int enc_regmap_reg_read(void *context, unsigned int reg,
			       unsigned int *val)
{
	struct enc_priv *priv = context;
	int ret;

	mutex_lock(&priv->bus_lock);
	priv->bstats.sfr_reads++;
	ret = __enc_sfr_read(priv, reg, 2);
	if (!ret)
		*val = get_unaligned_le16(priv->bufs->rx + 2);
	mutex_unlock(&priv->bus_lock);
	return ret;
}

static int enc_regmap_reg_write(void *context, unsigned int reg,
				unsigned int val)
{
	struct enc_priv *priv = context;
	u8 b[2];
	int ret;

	put_unaligned_le16(val, b);
	mutex_lock(&priv->bus_lock);
	priv->bstats.sfr_writes++;
	ret = __enc_sfr_write(priv, ENC_WCRU, reg, b, 2);
	mutex_unlock(&priv->bus_lock);
	return ret;
}

/* Native update_bits: BFSU for the bits to set, BFCU for the bits to
 * clear, each one CS frame covering both bytes of the register.  The
 * regmap core calls this for volatile registers only.  Of the MAC/MII
 * registers (BFS/BFC must not touch them) the MII command and status
 * ones are volatile, but the driver only writes those whole; an
 * update_bits on one is done as a 16-bit read-modify-write.
 */
static int enc_regmap_reg_update_bits(void *context, unsigned int reg,
				      unsigned int mask, unsigned int val)
{
	struct enc_priv *priv = context;
	u16 set, clr;
	int ret = 0;
	u8 b[2];

	enc_update_split(mask, val, &set, &clr);
	mutex_lock(&priv->bus_lock);
	if (WARN_ON_ONCE(enc_is_macmii(reg))) {
		u16 v;

		ret = __enc_sfr_read(priv, reg, 2);
		if (ret)
			goto out;
		v = get_unaligned_le16(priv->bufs->rx + 2);
		v = (v & ~mask) | (val & mask);
		put_unaligned_le16(v, b);
		ret = __enc_sfr_write(priv, ENC_WCRU, reg, b, 2);
		goto out;
	}

	priv->bstats.update_bits_offloaded++;
	if (set) {
		put_unaligned_le16(set, b);
		ret = __enc_sfr_write(priv, ENC_BFSU, reg, b, 2);
		if (ret)
			goto out;
	}
	if (clr) {
		put_unaligned_le16(clr, b);
		ret = __enc_sfr_write(priv, ENC_BFCU, reg, b, 2);
	}
out:
	mutex_unlock(&priv->bus_lock);
	return ret;
}

static const struct regmap_bus enc_regmap_bus = {
	.reg_read = enc_regmap_reg_read,
	.reg_write = enc_regmap_reg_write,
	.reg_update_bits = enc_regmap_reg_update_bits,
};

#ifdef ENC_TEST_HOOKS
/* Same bus without the native update: the core falls back to read+write */
static const struct regmap_bus enc_regmap_bus_rmw = {
	.reg_read = enc_regmap_reg_read,
	.reg_write = enc_regmap_reg_write,
};
#endif

static bool enc_volatile_reg(struct device *dev, unsigned int reg)
{
	switch (reg) {
	case ETXST:		/* written raw by the TX path */
	case ETXLEN:
	case ERXTAIL:		/* written raw by the RX path */
	case ERXHEAD:
	case EDMACS:
	case ETXSTAT:
	case ETXWIRE:
	case ESTAT:
	case EIR:
	case ECON1:
	case MICMD:		/* MII commands: an action, never replayed */
	case MIREGADR:
	case MIWR:		/* writing it starts a PHY write */
	case MIRD:
	case MISTAT:
	case ECON2:		/* self-clearing reset bits */
	case EIE:		/* SETEIE/CLREIE change INTIE behind the cache */
	case EGPDATA ... EUDAWRPT:
		return true;
	default:
		return false;
	}
}

static bool enc_precious_reg(struct device *dev, unsigned int reg)
{
	/* reading a data window moves its pointer */
	return reg >= EGPDATA && reg <= EUDADATA;
}

/* The SFR file has holes: the bank offsets 0x16-0x1F of banks 1-3 are
 * where banked access reaches the common registers (0x36-0x3F, 0x56-0x5F,
 * 0x76-0x7F), and 0x4C-0x51 and 0x92-0x9F are unimplemented.  Neither
 * debugfs nor a cache sync touches them.
 */
static const struct regmap_range enc_rd_ranges[] = {
	regmap_reg_range(ETXST, ERXFCON),
	regmap_reg_range(MACON1, MAMXFL),
	regmap_reg_range(MICMD, MIREGADR),
	regmap_reg_range(MAADR3, EIDLED),
	regmap_reg_range(EGPDATA, EUDAWRPT),
};

static const struct regmap_access_table enc_rd_table = {
	.yes_ranges = enc_rd_ranges,
	.n_yes_ranges = ARRAY_SIZE(enc_rd_ranges),
};

/* hardware state, read-only to the host */
static const struct regmap_range enc_ro_ranges[] = {
	regmap_reg_range(ERXHEAD, ERXHEAD),
	regmap_reg_range(ETXSTAT, ETXWIRE),
	regmap_reg_range(ESTAT, ESTAT),
	regmap_reg_range(MIRD, MISTAT),
};

static const struct regmap_access_table enc_wr_table = {
	.yes_ranges = enc_rd_ranges,
	.n_yes_ranges = ARRAY_SIZE(enc_rd_ranges),
	.no_ranges = enc_ro_ranges,
	.n_no_ranges = ARRAY_SIZE(enc_ro_ranges),
};

/* Only reset values the sources agree on: a wrong default would make
 * regcache_sync() skip a register after a chip reset.  The rest of the
 * cache fills as the driver writes.  (ERXST, ERXTAIL, ERXFCON and the MAC
 * registers have reset values quoted by one source or two, not checked
 * against the silicon; EIE is volatile.)
 */
static const struct reg_default enc_reg_defaults[] = {
	{ EUDAST, 0x0000 },	/* the reset check reads it */
};

static const struct regmap_config enc_regmap_config = {
	.name = "sfr",
	.reg_bits = 8,
	.reg_stride = 2,
	.val_bits = 16,
	.max_register = ENC_SFR_LAST,
	.rd_table = &enc_rd_table,
	.wr_table = &enc_wr_table,
	.reg_defaults = enc_reg_defaults,
	.num_reg_defaults = ARRAY_SIZE(enc_reg_defaults),
	.volatile_reg = enc_volatile_reg,
	.precious_reg = enc_precious_reg,
	.cache_type = REGCACHE_RBTREE,
};

struct regmap *enc_regmap_init(struct enc_priv *priv)
{
#ifdef ENC_TEST_HOOKS
	if (!offload) {
		dev_info(&priv->spi->dev, "update_bits offload off\n");
		return devm_regmap_init(&priv->spi->dev, &enc_regmap_bus_rmw,
					priv, &enc_regmap_config);
	}
#endif
	return devm_regmap_init(&priv->spi->dev, &enc_regmap_bus, priv,
				&enc_regmap_config);
}
