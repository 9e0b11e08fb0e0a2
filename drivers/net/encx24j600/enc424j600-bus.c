// SPDX-License-Identifier: GPL-2.0
/*
 * ENCX24J600 bus layer: raw SPI commands, SRAM windows and a regmap bus
 * that uses only the unbanked opcodes (RCRU/WCRU/BFSU/BFCU).
 *
 * Every chip-select frame is sent as its own spi_message: each message
 * starts and ends a CS assertion, which every SPI controller driver gets
 * right (some mishandle cs_change inside a message).  The counters below
 * therefore count one transaction per frame.
 */

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/spi/spi.h>
#include <asm/unaligned.h>

#include "enc424j600.h"

static bool chain_cmds;
module_param(chain_cmds, bool, 0444);
MODULE_PARM_DESC(chain_cmds,
		 "Send the SETPKTDEC commands of an RX batch and the ERXTAIL write in one chip-select frame (default: off)");

/* Send one CS frame made of @n transfers; bus_lock held. */
static int enc_frame(struct enc_priv *priv, struct spi_transfer *xfers,
		     unsigned int n)
{
	struct spi_message msg;
	unsigned int i;
	int ret;

	lockdep_assert_held(&priv->bus_lock);

	spi_message_init(&msg);
	for (i = 0; i < n; i++) {
		xfers[i].cs_change = 0;
		priv->bstats.spi_bytes += xfers[i].len;
		spi_message_add_tail(&xfers[i], &msg);
	}
	priv->bstats.spi_syncs++;
	priv->bstats.spi_transactions++;

	ret = spi_sync(priv->spi, &msg);
	if (ret && net_ratelimit())
		dev_err(&priv->spi->dev, "SPI transfer failed: %d\n", ret);
	return ret;
}

static int __enc_tx(struct enc_priv *priv, unsigned int len)
{
	struct spi_transfer t = {
		.tx_buf = priv->bufs->tx,
		.len = len,
	};

	return enc_frame(priv, &t, 1);
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

static int __enc_sfr_read(struct enc_priv *priv, u8 addr, size_t len)
{
	struct spi_transfer t[2] = {
		{ .tx_buf = priv->bufs->tx, .len = 2 },
		{ .rx_buf = priv->bufs->rx, .len = len },
	};

	if (WARN_ON_ONCE(!len || len > ENC_SFR_XFER_MAX))
		return -EINVAL;
	priv->bufs->tx[0] = ENC_RCRU;
	priv->bufs->tx[1] = addr;
	return enc_frame(priv, t, 2);
}

/* RCRU burst: @len bytes from SFR address @addr on (auto-increment). */
int enc_sfr_read(struct enc_priv *priv, u8 addr, void *buf, size_t len)
{
	int ret;

	mutex_lock(&priv->bus_lock);
	ret = __enc_sfr_read(priv, addr, len);
	if (!ret)
		memcpy(buf, priv->bufs->rx, len);
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

/* RRXDATA burst into @buf (kmalloc'ed, DMA safe).  The RX window wraps
 * from the end of SRAM to ERXST by itself, so consecutive bursts continue
 * where the previous one stopped.
 */
int enc_rx_read(struct enc_priv *priv, u8 *buf, size_t len)
{
	struct spi_transfer t[2] = {
		{ .tx_buf = priv->bufs->cmd, .len = 1 },
		{ .rx_buf = buf, .len = len },
	};
	int ret;

	mutex_lock(&priv->bus_lock);
	priv->bufs->cmd[0] = ENC_RRXDATA;
	priv->bstats.rx_bursts++;
	ret = enc_frame(priv, t, 2);
	mutex_unlock(&priv->bus_lock);
	return ret;
}

/* Give @frames consumed frames back to the chip: one SETPKTDEC each and
 * one ERXTAIL write.  With chain_cmds the 1-byte commands precede the
 * WCRU inside one CS frame.
 */
int enc_rx_release(struct enc_priv *priv, unsigned int frames, u16 tail)
{
	u8 *cmd = priv->bufs->cmd;
	int ret = 0;

	mutex_lock(&priv->bus_lock);
	cmd[0] = ENC_SETPKTDEC;
	cmd[1] = ENC_WCRU;
	cmd[2] = ERXTAIL;
	put_unaligned_le16(tail, &cmd[3]);

	if (chain_cmds) {
		unsigned int n = 0;

		while (frames) {
			unsigned int k = min_t(unsigned int, frames,
					       ENC_MAX_DEC_XFERS);

			n = 0;
			while (n < k) {
				priv->dec_xfers[n] = (struct spi_transfer) {
					.tx_buf = &cmd[0], .len = 1 };
				n++;
			}
			frames -= k;
			if (frames) {
				ret = enc_frame(priv, priv->dec_xfers, n);
				if (ret)
					goto out;
			}
		}
		priv->dec_xfers[n] = (struct spi_transfer) {
			.tx_buf = &cmd[1], .len = 4 };
		ret = enc_frame(priv, priv->dec_xfers, n + 1);
		goto out;
	}

	while (frames--) {
		priv->dec_xfers[0] = (struct spi_transfer) {
			.tx_buf = &cmd[0], .len = 1 };
		ret = enc_frame(priv, priv->dec_xfers, 1);
		if (ret)
			goto out;
	}
	priv->dec_xfers[0] = (struct spi_transfer) {
		.tx_buf = &cmd[1], .len = 4 };
	ret = enc_frame(priv, priv->dec_xfers, 1);
out:
	mutex_unlock(&priv->bus_lock);
	return ret;
}

/* Write a frame to the TX buffer and start it: WGPWRPT, WGPDATA + frame,
 * WCRU ETXST+ETXLEN (one 4-data-byte burst), SETTXRTS.
 * @data must be DMA safe (skb data is).
 */
int enc_tx_frame(struct enc_priv *priv, const void *data, unsigned int len)
{
	u8 *cmd = priv->bufs->cmd;
	struct spi_transfer t[2];
	int ret;

	mutex_lock(&priv->bus_lock);
	cmd[0] = ENC_WGPWRPT;
	put_unaligned_le16(ENC_TX_START, &cmd[1]);
	cmd[3] = ENC_WGPDATA;
	cmd[4] = ENC_WCRU;
	cmd[5] = ETXST;
	put_unaligned_le16(ENC_TX_START, &cmd[6]);
	put_unaligned_le16(len, &cmd[8]);
	cmd[10] = ENC_SETTXRTS;

	memset(t, 0, sizeof(t));
	t[0].tx_buf = &cmd[0];
	t[0].len = 3;
	ret = enc_frame(priv, t, 1);
	if (ret)
		goto out;

	memset(t, 0, sizeof(t));
	t[0].tx_buf = &cmd[3];
	t[0].len = 1;
	t[1].tx_buf = data;
	t[1].len = len;
	ret = enc_frame(priv, t, 2);
	if (ret)
		goto out;

	memset(t, 0, sizeof(t));
	t[0].tx_buf = &cmd[4];
	t[0].len = 6;
	ret = enc_frame(priv, t, 1);
	if (ret)
		goto out;

	t[0].tx_buf = &cmd[10];
	t[0].len = 1;
	ret = enc_frame(priv, t, 1);
out:
	mutex_unlock(&priv->bus_lock);
	return ret;
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
		*val = get_unaligned_le16(priv->bufs->rx);
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
 * regmap core calls this for volatile registers only; MAC/MII registers
 * are never volatile here, but if one ever gets here it is done as a
 * 16-bit read-modify-write, since BFS/BFC must not touch them.
 */
static int enc_regmap_reg_update_bits(void *context, unsigned int reg,
				      unsigned int mask, unsigned int val)
{
	struct enc_priv *priv = context;
	u16 set = mask & val;
	u16 clr = mask & ~val;
	u8 b[2];
	int ret = 0;

	mutex_lock(&priv->bus_lock);
	priv->bstats.update_bits_offloaded++;

	if (WARN_ON_ONCE(enc_is_macmii(reg))) {
		u16 v;

		ret = __enc_sfr_read(priv, reg, 2);
		if (ret)
			goto out;
		v = get_unaligned_le16(priv->bufs->rx);
		v = (v & ~mask) | (val & mask);
		put_unaligned_le16(v, b);
		ret = __enc_sfr_write(priv, ENC_WCRU, reg, b, 2);
		goto out;
	}

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

/* Same bus without the native update: the core falls back to read+write */
static const struct regmap_bus enc_regmap_bus_rmw = {
	.reg_read = enc_regmap_reg_read,
	.reg_write = enc_regmap_reg_write,
};

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

static bool enc_writeable_reg(struct device *dev, unsigned int reg)
{
	switch (reg) {
	case ERXHEAD:
	case ETXSTAT:
	case ETXWIRE:
	case ESTAT:
	case MIRD:
	case MISTAT:
		return false;
	default:
		return true;
	}
}

static const struct regmap_config enc_regmap_config = {
	.name = "sfr",
	.reg_bits = 8,
	.reg_stride = 2,
	.val_bits = 16,
	.max_register = ENC_SFR_LAST,
	.volatile_reg = enc_volatile_reg,
	.precious_reg = enc_precious_reg,
	.writeable_reg = enc_writeable_reg,
	.cache_type = REGCACHE_RBTREE,
};

struct regmap *enc_regmap_init(struct enc_priv *priv, bool offload)
{
	return devm_regmap_init(&priv->spi->dev,
				offload ? &enc_regmap_bus : &enc_regmap_bus_rmw,
				priv, &enc_regmap_config);
}
