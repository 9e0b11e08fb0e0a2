// SPDX-License-Identifier: GPL-2.0
/*
 * ENCX24J600 ethtool operations.
 */

#include <linux/ethtool.h>
#include <linux/netdevice.h>
#include <linux/phy.h>
#include <linux/string.h>

#include "enc424j600.h"

/* Names in the order of struct enc_bus_stats, then struct enc_drv_stats */
static const char enc_bus_stat_names[][ETH_GSTRING_LEN] = {
	"spi_syncs",
	"spi_transactions",
	"spi_bytes",
	"sfr_reads",
	"sfr_writes",
	"update_bits_offloaded",
	"rx_bursts",
};

static const char enc_drv_stat_names[][ETH_GSTRING_LEN] = {
	"irqs",
	"rx_batches",
	"rx_deferrals",
	"rx_pkt_full",
	"rx_resets",
	"rx_rewinds",
	"tx_resets",
	"link_changes",
	"chip_resets",
	"chip_lost",
	"irq_storms",
	"health_checks",
	"mii_reads",
	"mii_writes",
};

#define ENC_N_BUS_STATS	ARRAY_SIZE(enc_bus_stat_names)
#define ENC_N_DRV_STATS	ARRAY_SIZE(enc_drv_stat_names)

static void enc_get_drvinfo(struct net_device *ndev,
			    struct ethtool_drvinfo *info)
{
	struct enc_priv *priv = netdev_priv(ndev);

	strscpy(info->driver, ENC_DRV_NAME, sizeof(info->driver));
	strscpy(info->bus_info, dev_name(&priv->spi->dev),
		sizeof(info->bus_info));
}

static u32 enc_get_msglevel(struct net_device *ndev)
{
	struct enc_priv *priv = netdev_priv(ndev);

	return priv->msg_enable;
}

static void enc_set_msglevel(struct net_device *ndev, u32 val)
{
	struct enc_priv *priv = netdev_priv(ndev);

	priv->msg_enable = val;
}

static int enc_get_regs_len(struct net_device *ndev)
{
	return ENC_SFR_SIZE;
}

/* All SFRs 0x00-0x9f in two RCRU bursts.  The data windows
 * EGPDATA/ERXDATA/EUDADATA (0x80-0x85) read as 0: reading them would move
 * the SRAM pointers.
 */
static void enc_get_regs(struct net_device *ndev, struct ethtool_regs *regs,
			 void *p)
{
	struct enc_priv *priv = netdev_priv(ndev);
	u8 *buf = p;

	regs->version = priv->revid;
	memset(buf, 0, ENC_SFR_SIZE);
	if (enc_sfr_read(priv, 0x00, buf, EGPDATA))
		return;
	enc_sfr_read(priv, EGPRDPT, buf + EGPRDPT, ENC_SFR_SIZE - EGPRDPT);
}

static int enc_get_sset_count(struct net_device *ndev, int sset)
{
	switch (sset) {
	case ETH_SS_STATS:
		return ENC_N_BUS_STATS + ENC_N_DRV_STATS;
	default:
		return -EOPNOTSUPP;
	}
}

static void enc_get_strings(struct net_device *ndev, u32 sset, u8 *data)
{
	if (sset != ETH_SS_STATS)
		return;
	memcpy(data, enc_bus_stat_names, sizeof(enc_bus_stat_names));
	memcpy(data + sizeof(enc_bus_stat_names), enc_drv_stat_names,
	       sizeof(enc_drv_stat_names));
}

static void enc_get_ethtool_stats(struct net_device *ndev,
				  struct ethtool_stats *stats, u64 *data)
{
	struct enc_priv *priv = netdev_priv(ndev);

	BUILD_BUG_ON(sizeof(struct enc_bus_stats) != ENC_N_BUS_STATS * sizeof(u64));
	BUILD_BUG_ON(sizeof(struct enc_drv_stats) != ENC_N_DRV_STATS * sizeof(u64));

	mutex_lock(&priv->lock);
	mutex_lock(&priv->bus_lock);
	memcpy(data, &priv->bstats, sizeof(priv->bstats));
	mutex_unlock(&priv->bus_lock);
	memcpy(data + ENC_N_BUS_STATS, &priv->dstats, sizeof(priv->dstats));
	mutex_unlock(&priv->lock);
}

const struct ethtool_ops enc_ethtool_ops = {
	.get_drvinfo		= enc_get_drvinfo,
	.get_link		= ethtool_op_get_link,
	.get_msglevel		= enc_get_msglevel,
	.set_msglevel		= enc_set_msglevel,
	.get_link_ksettings	= phy_ethtool_get_link_ksettings,
	.set_link_ksettings	= phy_ethtool_set_link_ksettings,
	.nway_reset		= phy_ethtool_nway_reset,
	.get_regs_len		= enc_get_regs_len,
	.get_regs		= enc_get_regs,
	.get_sset_count		= enc_get_sset_count,
	.get_strings		= enc_get_strings,
	.get_ethtool_stats	= enc_get_ethtool_stats,
};
