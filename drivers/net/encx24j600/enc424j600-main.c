// SPDX-License-Identifier: GPL-2.0
/*
 * Microchip ENC424J600/ENC624J600 SPI Ethernet controller: netdev core.
 *
 * Register access goes through a cached regmap (enc424j600-bus.c) whose
 * bus implements update_bits with the chip's BFSU/BFCU opcodes; the data
 * path uses raw SPI bursts.  See docs/driver.md for the design.
 */

#include <linux/bitfield.h>
#include <linux/crc32.h>
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/interrupt.h>
#include <linux/irq.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mod_devicetable.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/spi/spi.h>
#include <asm/unaligned.h>

#include "enc424j600.h"

static bool offload = true;
module_param(offload, bool, 0444);
MODULE_PARM_DESC(offload,
		 "Use the chip's BFSU/BFCU opcodes for regmap update_bits on volatile registers (default: on)");

#define ENC_MSG_DEFAULT	(NETIF_MSG_DRV | NETIF_MSG_PROBE | NETIF_MSG_LINK)

#define ENC_EIE_RUN	(EIE_LINKIE | EIE_PKTIE | EIE_TXIE | EIE_TXABTIE | \
			 EIE_RXABTIE | EIE_PCFULIE)
#define ENC_EIR_CLEARABLE (EIR_LINKIF | EIR_DMAIF | EIR_TXIF | EIR_TXABTIF | \
			   EIR_RXABTIF | EIR_PCFULIF)

/* Status burst: one RCRU from ERXHEAD (0x08) to the end of ECON1 (0x1f) */
#define ENC_ST_FIRST	ERXHEAD
#define ENC_ST_LEN	(ECON1 + 2 - ERXHEAD)
#define ENC_ST(b, reg)	get_unaligned_le16(&(b)[(reg) - ENC_ST_FIRST])

static void enc_stat_add(struct enc_priv *priv, u64_stats_t *s,
			 unsigned long v)
{
	u64_stats_update_begin(&priv->nstats.syncp);
	u64_stats_add(s, v);
	u64_stats_update_end(&priv->nstats.syncp);
}

/* RX ring arithmetic */

static u16 enc_rx_wrap(u32 addr)
{
	if (addr > ENC_SRAM_END)
		addr -= ENC_RX_SIZE;
	return addr;
}

static u32 enc_rx_dist(u16 from, u16 to)
{
	return to >= from ? to - from : to + ENC_RX_SIZE - from;
}

static bool enc_rx_ptr_ok(u16 p)
{
	return !(p & 1) && p >= ENC_RX_START && p <= ENC_SRAM_END;
}

/* ERXTAIL for a ring whose next unread frame starts at @next */
static u16 enc_rx_tail(u16 next)
{
	return next == ENC_RX_START ? ENC_SRAM_END - 1 : next - 2;
}

/* PHY access through the MII management registers (priv->lock held) */

static int enc_mii_wait(struct enc_priv *priv)
{
	unsigned int v;

	return regmap_read_poll_timeout(priv->map, MISTAT, v,
					!(v & MISTAT_BUSY), 30, 10000);
}

int enc_phy_read(struct enc_priv *priv, u8 reg, u16 *val)
{
	unsigned int v;
	int ret;

	lockdep_assert_held(&priv->lock);

	ret = regmap_write(priv->map, MIREGADR, MIREGADR_R8 | reg);
	if (!ret)
		ret = regmap_write(priv->map, MICMD, MICMD_MIIRD);
	if (ret)
		return ret;
	usleep_range(26, 50);
	ret = enc_mii_wait(priv);
	if (!ret)
		ret = regmap_write(priv->map, MICMD, 0);
	if (!ret)
		ret = regmap_read(priv->map, MIRD, &v);
	if (!ret)
		*val = v;
	return ret;
}

int enc_phy_write(struct enc_priv *priv, u8 reg, u16 val)
{
	int ret;

	lockdep_assert_held(&priv->lock);

	ret = regmap_write(priv->map, MIREGADR, MIREGADR_R8 | reg);
	if (!ret)
		ret = regmap_write(priv->map, MIWR, val);
	if (ret)
		return ret;
	usleep_range(26, 50);
	return enc_mii_wait(priv);
}

int enc_phy_restart_aneg(struct enc_priv *priv)
{
	int ret;

	ret = enc_phy_write(priv, PHANA, PHANA_DEFAULT);
	if (!ret)
		ret = enc_phy_write(priv, PHCON1, PHCON1_ANEN | PHCON1_RENEG);
	return ret;
}

/* Link state: carrier from ESTAT.PHYLNK, MAC duplex from ESTAT.PHYDPX */

static void enc_tx_reset(struct enc_priv *priv)
{
	regmap_set_bits(priv->map, ECON2, ECON2_TXRST);
	regmap_clear_bits(priv->map, ECON2, ECON2_TXRST);
	priv->dstats.tx_resets++;
}

/* wake from process context: let the TX softirq run at bh enable */
static void enc_wake_queue(struct net_device *ndev)
{
	local_bh_disable();
	netif_wake_queue(ndev);
	local_bh_enable();
}

static void enc_tx_complete(struct enc_priv *priv)
{
	if (priv->tx_inflight) {
		priv->tx_inflight = false;
		enc_wake_queue(priv->ndev);
	}
}

static void enc_set_duplex(struct enc_priv *priv, bool full)
{
	regmap_update_bits(priv->map, MACON2, MACON2_FULDPX,
			   full ? MACON2_FULDPX : 0);
	regmap_update_bits(priv->map, MABBIPG, 0x7f,
			   full ? MABBIPG_FULL : MABBIPG_HALF);
	priv->full_duplex = full;
}

static void enc_link_update(struct enc_priv *priv, u16 estat)
{
	struct net_device *ndev = priv->ndev;
	bool link = estat & ESTAT_PHYLNK;

	if (link) {
		enc_set_duplex(priv, estat & ESTAT_PHYDPX);
		if (!netif_carrier_ok(ndev)) {
			netif_carrier_on(ndev);
			netif_info(priv, link, ndev, "link up, %s duplex\n",
				   priv->full_duplex ? "full" : "half");
		}
	} else if (netif_carrier_ok(ndev)) {
		netif_carrier_off(ndev);
		netif_info(priv, link, ndev, "link down\n");
		if (priv->tx_inflight) {
			enc_tx_reset(priv);
			enc_stat_add(priv, &priv->nstats.tx_errors, 1);
			enc_stat_add(priv, &priv->nstats.tx_carrier_errors, 1);
			enc_tx_complete(priv);
		}
	}
}

/* Receive */

/* Reset the receive logic and re-arm the ring (also used by open):
 * ERXRDPT = ERXHEAD, tail just behind it, PKTCNT drained to 0.
 */
static int enc_rx_reset(struct enc_priv *priv)
{
	u16 head, estat;
	int ret, n;

	lockdep_assert_held(&priv->lock);

	ret = enc_cmd(priv, ENC_DISABLERX);
	if (ret)
		return ret;
	regmap_set_bits(priv->map, ECON2, ECON2_RXRST);
	regmap_clear_bits(priv->map, ECON2, ECON2_RXRST);
	regmap_write(priv->map, ERXST, ENC_RX_START);

	ret = enc_read16(priv, ERXHEAD, &head);
	if (ret)
		return ret;
	if (!enc_rx_ptr_ok(head))
		head = ENC_RX_START;
	regmap_write(priv->map, ERXTAIL, enc_rx_tail(head));
	ret = enc_ptr_write(priv, ENC_WRXRDPT, head);
	if (ret)
		return ret;
	priv->rx_rdpt = head;
	priv->rx_stall = 0;

	ret = enc_read16(priv, ESTAT, &estat);
	if (ret)
		return ret;
	for (n = estat & ESTAT_PKTCNT; n > 0; n--)
		enc_cmd(priv, ENC_SETPKTDEC);
	regmap_clear_bits(priv->map, EIR, EIR_RXABTIF | EIR_PCFULIF);

	if (netif_running(priv->ndev))
		ret = enc_cmd(priv, ENC_ENABLERX);
	return ret;
}

static void enc_rx_corrupt(struct enc_priv *priv, const char *what, u16 at)
{
	if (net_ratelimit())
		netdev_err(priv->ndev, "RX ring corrupt (%s at 0x%04x), resetting RX\n",
			   what, at);
	enc_stat_add(priv, &priv->nstats.rx_errors, 1);
	priv->dstats.rx_resets++;
	enc_rx_reset(priv);
}

static void enc_rx_frame(struct enc_priv *priv, const u8 *data, u16 len,
			 u32 rsv)
{
	struct net_device *ndev = priv->ndev;
	struct sk_buff *skb;

	if (!(rsv & RSV_RXOK)) {
		priv->dstats.rx_bad_frames++;
		enc_stat_add(priv, &priv->nstats.rx_errors, 1);
		if (rsv & RSV_CRCERR)
			enc_stat_add(priv, &priv->nstats.rx_crc_errors, 1);
		else
			enc_stat_add(priv, &priv->nstats.rx_length_errors, 1);
		return;
	}

	len -= ETH_FCS_LEN;
	skb = netdev_alloc_skb_ip_align(ndev, len);
	if (!skb) {
		enc_stat_add(priv, &priv->nstats.rx_dropped, 1);
		return;
	}
	skb_put_data(skb, data, len);
	skb->protocol = eth_type_trans(skb, ndev);

	u64_stats_update_begin(&priv->nstats.syncp);
	u64_stats_inc(&priv->nstats.rx_packets);
	u64_stats_add(&priv->nstats.rx_bytes, len);
	u64_stats_update_end(&priv->nstats.syncp);

	netif_rx(skb);
}

/* Read every frame between our read pointer and @head.  ERXRDPT already
 * points at the first pending frame (it was set once when RX was armed,
 * and every burst leaves it exactly at the end of what was consumed), so
 * a batch is: RRXDATA burst(s) of the pending bytes, one SETPKTDEC per
 * frame, one ERXTAIL write.
 */
static void enc_rx(struct enc_priv *priv, u16 head, bool pktif)
{
	u8 *buf = priv->rx_buf;
	u16 pos = priv->rx_rdpt;
	unsigned int frames = 0;
	u32 pending, have = 0;

	if (!enc_rx_ptr_ok(head)) {
		enc_rx_corrupt(priv, "ERXHEAD", head);
		return;
	}

	pending = enc_rx_dist(pos, head);
	if (!pending) {
		/* PKTIF with nothing in the ring twice in a row: resync */
		if (pktif && ++priv->rx_stall > 1)
			enc_rx_corrupt(priv, "PKTCNT", head);
		return;
	}
	priv->rx_stall = 0;
	priv->dstats.rx_batches++;

	while (pending) {
		u32 n = min_t(u32, pending, ENC_RX_BUF_SIZE - have);
		const char *bad = NULL;
		u32 off = 0;

		if (enc_rx_read(priv, buf + have, n)) {
			enc_rx_corrupt(priv, "SPI error", pos);
			return;
		}
		have += n;
		pending -= n;

		local_bh_disable();
		while (have - off >= ENC_RX_HDR_LEN) {
			const u8 *hdr = buf + off;
			u16 next = get_unaligned_le16(hdr);
			u16 len = get_unaligned_le16(hdr + 2);
			u32 rsv = get_unaligned_le32(hdr + 4);
			u32 flen = ENC_RX_HDR_LEN + ALIGN(len, 2);

			if (len < ETH_HLEN + ETH_FCS_LEN || len > ENC_MAX_FRAME) {
				bad = "length";
				break;
			}
			if (next != enc_rx_wrap(pos + flen)) {
				bad = "next pointer";
				break;
			}
			if (have - off < flen)
				break;

			enc_rx_frame(priv, hdr + ENC_RX_HDR_LEN, len, rsv);
			pos = next;
			off += flen;
			frames++;
		}
		local_bh_enable();

		if (bad) {
			enc_rx_corrupt(priv, bad, pos);
			return;
		}
		have -= off;
		memmove(buf, buf + off, have);
	}

	if (have) {
		enc_rx_corrupt(priv, "frame past ERXHEAD", pos);
		return;
	}

	priv->rx_rdpt = pos;
	if (enc_rx_release(priv, frames, enc_rx_tail(pos)))
		enc_rx_corrupt(priv, "SPI error", pos);
}

/* Interrupt thread: one status burst, then link, TX done, RX */

static irqreturn_t enc_irq_thread(int irq, void *dev_id)
{
	struct enc_priv *priv = dev_id;
	struct net_device *ndev = priv->ndev;
	u8 st[ENC_ST_LEN];
	u16 head, estat, eir, clear = 0;

	mutex_lock(&priv->lock);
	priv->dstats.irqs++;

	if (priv->irq_edge)
		enc_cmd(priv, ENC_CLREIE);

	if (enc_sfr_read(priv, ENC_ST_FIRST, st, sizeof(st)))
		goto out;
	head = ENC_ST(st, ERXHEAD);
	estat = ENC_ST(st, ESTAT);
	eir = ENC_ST(st, EIR);

	if (!netif_running(ndev)) {
		/* interrupts are off while down; make sure they stay so */
		regmap_write(priv->map, EIE, 0);
		goto out;
	}

	if (eir & EIR_LINKIF) {
		priv->dstats.link_changes++;
		enc_link_update(priv, estat);
	}

	if (eir & (EIR_TXIF | EIR_TXABTIF)) {
		if (eir & EIR_TXABTIF) {
			priv->dstats.tx_aborts++;
			enc_stat_add(priv, &priv->nstats.tx_errors, 1);
			enc_stat_add(priv, &priv->nstats.tx_aborted_errors, 1);
			enc_tx_reset(priv);
		} else if (priv->tx_inflight) {
			u64_stats_update_begin(&priv->nstats.syncp);
			u64_stats_inc(&priv->nstats.tx_packets);
			u64_stats_add(&priv->nstats.tx_bytes, priv->tx_len);
			u64_stats_update_end(&priv->nstats.syncp);
		}
		enc_tx_complete(priv);
	}

	if (eir & EIR_RXABTIF) {
		priv->dstats.rx_overruns++;
		enc_stat_add(priv, &priv->nstats.rx_over_errors, 1);
	}
	if (eir & EIR_PCFULIF)
		priv->dstats.rx_pkt_full++;

	enc_rx(priv, head, eir & EIR_PKTIF);

	clear = eir & ENC_EIR_CLEARABLE;
	if (clear)
		regmap_clear_bits(priv->map, EIR, clear);
out:
	if (priv->irq_edge && netif_running(ndev))
		enc_cmd(priv, ENC_SETEIE);
	mutex_unlock(&priv->lock);
	return IRQ_HANDLED;
}

/* Transmit */

static netdev_tx_t enc_start_xmit(struct sk_buff *skb, struct net_device *ndev)
{
	struct enc_priv *priv = netdev_priv(ndev);

	/* one TX buffer in the chip: one frame at a time */
	netif_stop_queue(ndev);
	WRITE_ONCE(priv->tx_skb, skb);
	schedule_work(&priv->tx_work);
	return NETDEV_TX_OK;
}

static void enc_tx_work(struct work_struct *work)
{
	struct enc_priv *priv = container_of(work, struct enc_priv, tx_work);
	struct net_device *ndev = priv->ndev;
	struct sk_buff *skb;

	mutex_lock(&priv->lock);

	if (test_and_clear_bit(ENC_TX_TIMEOUT, &priv->flags)) {
		priv->dstats.tx_timeouts++;
		enc_stat_add(priv, &priv->nstats.tx_errors, 1);
		enc_tx_reset(priv);
		priv->tx_inflight = false;
		if (!READ_ONCE(priv->tx_skb))
			enc_wake_queue(ndev);
	}

	skb = xchg(&priv->tx_skb, NULL);
	if (!skb)
		goto out;

	if (!netif_running(ndev) || !netif_carrier_ok(ndev) ||
	    skb->len > ENC_MAX_TX) {
		enc_stat_add(priv, &priv->nstats.tx_dropped, 1);
		dev_kfree_skb(skb);
		enc_wake_queue(ndev);
		goto out;
	}

	if (enc_tx_frame(priv, skb->data, skb->len)) {
		enc_stat_add(priv, &priv->nstats.tx_errors, 1);
		dev_kfree_skb(skb);
		enc_wake_queue(ndev);
		goto out;
	}
	priv->tx_len = skb->len;
	priv->tx_inflight = true;
	dev_consume_skb_any(skb);
out:
	mutex_unlock(&priv->lock);
}

static void enc_tx_timeout(struct net_device *ndev, unsigned int txqueue)
{
	struct enc_priv *priv = netdev_priv(ndev);

	set_bit(ENC_TX_TIMEOUT, &priv->flags);
	schedule_work(&priv->tx_work);
}

/* Receive filters: ERXFCON and the 64-bit hash table EHT1-4 */

static void enc_rx_mode_apply(struct enc_priv *priv)
{
	struct net_device *ndev = priv->ndev;
	u16 fcon = ERXFCON_CRCEN | ERXFCON_RUNTEN | ERXFCON_UCEN | ERXFCON_BCEN;
	u16 ht[4] = { };
	int i;

	lockdep_assert_held(&priv->lock);

	if (ndev->flags & IFF_PROMISC) {
		fcon |= ERXFCON_NOTMEEN | ERXFCON_MCEN;
	} else if (ndev->flags & IFF_ALLMULTI) {
		fcon |= ERXFCON_MCEN;
	} else if (!netdev_mc_empty(ndev)) {
		struct netdev_hw_addr *ha;

		fcon |= ERXFCON_HTEN;
		netif_addr_lock_bh(ndev);
		netdev_for_each_mc_addr(ha, ndev) {
			u32 idx = (ether_crc(ETH_ALEN, ha->addr) >> 23) & 0x3f;

			ht[idx >> 4] |= BIT(idx & 15);
		}
		netif_addr_unlock_bh(ndev);
	}

	/* cached registers: only changed values reach the chip */
	for (i = 0; i < ARRAY_SIZE(ht); i++)
		regmap_update_bits(priv->map, EHT1 + 2 * i, 0xffff, ht[i]);
	regmap_update_bits(priv->map, ERXFCON, 0xffff, fcon);
}

static void enc_rx_mode_work(struct work_struct *work)
{
	struct enc_priv *priv = container_of(work, struct enc_priv,
					     rx_mode_work);

	mutex_lock(&priv->lock);
	enc_rx_mode_apply(priv);
	mutex_unlock(&priv->lock);
}

static void enc_set_rx_mode(struct net_device *ndev)
{
	struct enc_priv *priv = netdev_priv(ndev);

	schedule_work(&priv->rx_mode_work);
}

static int enc_write_mac(struct enc_priv *priv, const u8 *addr)
{
	int ret;

	ret = regmap_write(priv->map, MAADR1, addr[0] | addr[1] << 8);
	if (!ret)
		ret = regmap_write(priv->map, MAADR2, addr[2] | addr[3] << 8);
	if (!ret)
		ret = regmap_write(priv->map, MAADR3, addr[4] | addr[5] << 8);
	return ret;
}

static int enc_set_mac_address(struct net_device *ndev, void *p)
{
	struct enc_priv *priv = netdev_priv(ndev);
	int ret;

	ret = eth_prepare_mac_addr_change(ndev, p);
	if (ret)
		return ret;

	mutex_lock(&priv->lock);
	ret = enc_write_mac(priv, ((struct sockaddr *)p)->sa_data);
	mutex_unlock(&priv->lock);
	if (ret)
		return ret;

	eth_commit_mac_addr_change(ndev, p);
	return 0;
}

static void enc_get_stats64(struct net_device *ndev,
			    struct rtnl_link_stats64 *s)
{
	struct enc_priv *priv = netdev_priv(ndev);
	struct enc_net_stats *n = &priv->nstats;
	unsigned int start;

	do {
		start = u64_stats_fetch_begin(&n->syncp);
		s->rx_packets = u64_stats_read(&n->rx_packets);
		s->rx_bytes = u64_stats_read(&n->rx_bytes);
		s->rx_errors = u64_stats_read(&n->rx_errors);
		s->rx_dropped = u64_stats_read(&n->rx_dropped);
		s->rx_over_errors = u64_stats_read(&n->rx_over_errors);
		s->rx_crc_errors = u64_stats_read(&n->rx_crc_errors);
		s->rx_length_errors = u64_stats_read(&n->rx_length_errors);
		s->tx_packets = u64_stats_read(&n->tx_packets);
		s->tx_bytes = u64_stats_read(&n->tx_bytes);
		s->tx_errors = u64_stats_read(&n->tx_errors);
		s->tx_dropped = u64_stats_read(&n->tx_dropped);
		s->tx_aborted_errors = u64_stats_read(&n->tx_aborted_errors);
		s->tx_carrier_errors = u64_stats_read(&n->tx_carrier_errors);
	} while (u64_stats_fetch_retry(&n->syncp, start));
}

static int enc_open(struct net_device *ndev)
{
	struct enc_priv *priv = netdev_priv(ndev);
	u16 estat;
	int ret;

	mutex_lock(&priv->lock);
	priv->tx_inflight = false;
	clear_bit(ENC_TX_TIMEOUT, &priv->flags);

	netif_carrier_off(ndev);
	enc_rx_mode_apply(priv);
	regmap_clear_bits(priv->map, EIR, ENC_EIR_CLEARABLE);
	ret = enc_rx_reset(priv);
	if (!ret)
		ret = enc_read16(priv, ESTAT, &estat);
	if (!ret) {
		enc_link_update(priv, estat);
		priv->eie = ENC_EIE_RUN;
		ret = regmap_write(priv->map, EIE, priv->eie | EIE_INTIE);
	}
	mutex_unlock(&priv->lock);
	if (ret) {
		netdev_err(ndev, "cannot start the chip: %d\n", ret);
		return ret;
	}

	netif_start_queue(ndev);
	return 0;
}

static int enc_stop(struct net_device *ndev)
{
	struct enc_priv *priv = netdev_priv(ndev);
	struct sk_buff *skb;

	netif_stop_queue(ndev);

	mutex_lock(&priv->lock);
	enc_cmd(priv, ENC_CLREIE);
	priv->eie = 0;
	regmap_write(priv->map, EIE, 0);
	enc_cmd(priv, ENC_DISABLERX);
	priv->tx_inflight = false;
	mutex_unlock(&priv->lock);

	cancel_work_sync(&priv->tx_work);
	cancel_work_sync(&priv->rx_mode_work);
	clear_bit(ENC_TX_TIMEOUT, &priv->flags);

	skb = xchg(&priv->tx_skb, NULL);
	if (skb) {
		mutex_lock(&priv->lock);
		enc_stat_add(priv, &priv->nstats.tx_dropped, 1);
		mutex_unlock(&priv->lock);
		dev_kfree_skb(skb);
	}
	netif_carrier_off(ndev);
	return 0;
}

static const struct net_device_ops enc_netdev_ops = {
	.ndo_open		= enc_open,
	.ndo_stop		= enc_stop,
	.ndo_start_xmit		= enc_start_xmit,
	.ndo_set_rx_mode	= enc_set_rx_mode,
	.ndo_set_mac_address	= enc_set_mac_address,
	.ndo_validate_addr	= eth_validate_addr,
	.ndo_tx_timeout		= enc_tx_timeout,
	.ndo_get_stats64	= enc_get_stats64,
};

/* Probe: reset (chip-facts section 7), identify, configure */

static int enc_soft_reset(struct enc_priv *priv)
{
	struct device *dev = &priv->spi->dev;
	u16 v = 0;
	int i, ret;

	for (i = 0; i < 10; i++) {
		ret = enc_write16(priv, EUDAST, 0x1234);
		if (!ret)
			ret = enc_read16(priv, EUDAST, &v);
		if (ret)
			return ret;
		if (v == 0x1234)
			break;
		usleep_range(1000, 2000);
	}
	if (v != 0x1234) {
		dev_err(dev, "no ENCX24J600 answering: EUDAST reads 0x%04x, not 0x1234\n",
			v);
		return -ENODEV;
	}

	for (i = 0; i < 100; i++) {
		ret = enc_read16(priv, ESTAT, &v);
		if (ret)
			return ret;
		if (v & ESTAT_CLKRDY)
			break;
		usleep_range(100, 200);
	}
	if (!(v & ESTAT_CLKRDY)) {
		dev_err(dev, "clock not ready (ESTAT 0x%04x)\n", v);
		return -ENODEV;
	}

	ret = enc_cmd(priv, ENC_SETETHRST);
	if (ret)
		return ret;
	usleep_range(50, 100);

	ret = enc_read16(priv, EUDAST, &v);
	if (ret)
		return ret;
	if (v) {
		dev_err(dev, "reset failed: EUDAST reads 0x%04x after reset\n", v);
		return -EIO;
	}
	/* PHY registers are usable 256 us after reset */
	usleep_range(1000, 1500);
	priv->dstats.chip_resets++;
	return 0;
}

static int enc_hw_init(struct enc_priv *priv)
{
	struct regmap *map = priv->map;
	int ret;

	/* EIE resets to 0x8010 (INTIE set): keep the pin quiet until open */
	ret = regmap_write(map, EIE, 0);
	if (ret)
		return ret;
	regmap_write(map, ERXST, ENC_RX_START);
	regmap_write(map, ERXTAIL, enc_rx_tail(ENC_RX_START));
	regmap_write(map, EUDAST, ENC_UDA_OFF_ST);
	regmap_write(map, EUDAND, ENC_UDA_OFF_ND);
	regmap_write(map, MAMXFL, ENC_MAX_FRAME);
	regmap_write(map, MACON2, MACON2_DEFAULT);
	regmap_write(map, MABBIPG, MABBIPG_HALF);
	regmap_write(map, MACLCON, MACLCON_DEFAULT);
	ret = regmap_write(map, ERXFCON, ERXFCON_CRCEN | ERXFCON_RUNTEN |
			   ERXFCON_UCEN | ERXFCON_BCEN);
	if (ret)
		return ret;

	/* advertise 10/100 half/full + pause, restart autoneg; never wait */
	mutex_lock(&priv->lock);
	ret = enc_phy_restart_aneg(priv);
	mutex_unlock(&priv->lock);
	return ret;
}

static int enc_get_mac(struct enc_priv *priv)
{
	struct net_device *ndev = priv->ndev;
	unsigned int a[3];
	u8 addr[ETH_ALEN];
	int ret;

	if (!device_get_ethdev_address(&priv->spi->dev, ndev))
		return enc_write_mac(priv, ndev->dev_addr);

	ret = regmap_read(priv->map, MAADR1, &a[0]);
	if (!ret)
		ret = regmap_read(priv->map, MAADR2, &a[1]);
	if (!ret)
		ret = regmap_read(priv->map, MAADR3, &a[2]);
	if (ret)
		return ret;
	addr[0] = a[0];
	addr[1] = a[0] >> 8;
	addr[2] = a[1];
	addr[3] = a[1] >> 8;
	addr[4] = a[2];
	addr[5] = a[2] >> 8;
	if (is_valid_ether_addr(addr)) {
		eth_hw_addr_set(ndev, addr);
		return 0;
	}

	eth_hw_addr_random(ndev);
	dev_warn(&priv->spi->dev, "no valid MAC address, using random %pM\n",
		 ndev->dev_addr);
	return enc_write_mac(priv, ndev->dev_addr);
}

static int enc_probe(struct spi_device *spi)
{
	struct device *dev = &spi->dev;
	struct net_device *ndev;
	struct enc_priv *priv;
	unsigned int eidled;
	int ret;

	if (spi->irq <= 0)
		return dev_err_probe(dev, -EINVAL, "no interrupt\n");

	spi->mode &= ~(SPI_CPOL | SPI_CPHA);	/* SPI mode 0 */
	spi->bits_per_word = 8;
	ret = spi_setup(spi);
	if (ret)
		return dev_err_probe(dev, ret, "SPI setup failed\n");

	ndev = devm_alloc_etherdev(dev, sizeof(*priv));
	if (!ndev)
		return -ENOMEM;
	SET_NETDEV_DEV(ndev, dev);
	priv = netdev_priv(ndev);
	priv->ndev = ndev;
	priv->spi = spi;
	priv->msg_enable = ENC_MSG_DEFAULT;
	spi_set_drvdata(spi, priv);
	mutex_init(&priv->bus_lock);
	mutex_init(&priv->lock);
	u64_stats_init(&priv->nstats.syncp);
	INIT_WORK(&priv->tx_work, enc_tx_work);
	INIT_WORK(&priv->rx_mode_work, enc_rx_mode_work);

	priv->bufs = devm_kzalloc(dev, sizeof(*priv->bufs), GFP_KERNEL);
	priv->rx_buf = devm_kmalloc(dev, ENC_RX_BUF_SIZE, GFP_KERNEL);
	if (!priv->bufs || !priv->rx_buf)
		return -ENOMEM;

	ret = enc_soft_reset(priv);
	if (ret)
		return ret;

	priv->map = enc_regmap_init(priv, offload);
	if (IS_ERR(priv->map))
		return dev_err_probe(dev, PTR_ERR(priv->map), "regmap init failed\n");

	ret = regmap_read(priv->map, EIDLED, &eidled);
	if (ret)
		return ret;
	if (FIELD_GET(EIDLED_DEVID, eidled) != ENC_DEVID) {
		dev_err(dev, "unexpected device ID %lu (EIDLED 0x%04x)\n",
			FIELD_GET(EIDLED_DEVID, eidled), eidled);
		return -ENODEV;
	}
	priv->revid = FIELD_GET(EIDLED_REVID, eidled);

	ret = enc_hw_init(priv);
	if (ret)
		return dev_err_probe(dev, ret, "chip setup failed\n");
	ret = enc_get_mac(priv);
	if (ret)
		return dev_err_probe(dev, ret, "cannot set the MAC address\n");

	ndev->netdev_ops = &enc_netdev_ops;
	ndev->ethtool_ops = &enc_ethtool_ops;
	ndev->watchdog_timeo = 2 * HZ;
	ndev->priv_flags |= IFF_LIVE_ADDR_CHANGE;
	ndev->irq = spi->irq;
	netif_carrier_off(ndev);

	priv->irq_edge = irq_get_trigger_type(spi->irq) & IRQ_TYPE_EDGE_BOTH;
	ret = devm_request_threaded_irq(dev, spi->irq, NULL, enc_irq_thread,
					IRQF_ONESHOT, dev_name(dev), priv);
	if (ret)
		return dev_err_probe(dev, ret, "cannot request IRQ %d\n",
				     spi->irq);

	ret = devm_register_netdev(dev, ndev);
	if (ret)
		return dev_err_probe(dev, ret, "cannot register netdev\n");

	dev_info(dev, "%s: ENCX24J600 rev %u, MAC %pM, IRQ %d%s\n",
		 ndev->name, priv->revid, ndev->dev_addr, spi->irq,
		 offload ? "" : ", update_bits offload off");
	return 0;
}

static const struct of_device_id enc_of_match[] = {
	{ .compatible = "microchip,encx24j600" },
	{ }
};
MODULE_DEVICE_TABLE(of, enc_of_match);

static const struct spi_device_id enc_spi_id[] = {
	{ "encx24j600" },
	{ }
};
MODULE_DEVICE_TABLE(spi, enc_spi_id);

static struct spi_driver enc_driver = {
	.driver = {
		.name = ENC_DRV_NAME,
		.of_match_table = enc_of_match,
	},
	.probe = enc_probe,
	.id_table = enc_spi_id,
};
module_spi_driver(enc_driver);

MODULE_DESCRIPTION("Microchip ENC424J600/ENC624J600 SPI Ethernet driver");
MODULE_LICENSE("GPL");
